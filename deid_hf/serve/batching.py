"""Dynamic batching: texts from many requests share one model call.

Submitted items wait in a bounded queue. One worker takes the first waiting item, then keeps collecting
until it holds ``max_batch`` items or ``max_wait_ms`` have passed since it took the first, groups the batch
by key (items with equal options run in one call), runs each group in a worker thread and resolves each
item's future with its own result or its own exception: one bad item never fails the others. A single
worker thread runs the model (save after a time budget ran out, below), so the pipelines need not be
thread-safe.

Time budget (``item_budget_s``): a batch of n texts may hold the model thread for n times the budget. A
batch over it gets `OverBudget` for each of its items, and the batcher moves on in a fresh model thread, so
the requests behind it are not starved; Python cannot stop a thread, so the old one finishes that call in
the background (its result is dropped), sharing the pipelines with the next calls (a call only reads
their models). At most `MAX_ABANDONED` such calls run at once: beyond that the batcher waits for one of
them before it starts the next batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

log = logging.getLogger("deid_hf.serve")


class QueueFull(Exception):
    """The queue cannot take the submitted items now (answered with 503)."""


class OverBudget(Exception):
    """The item's model call ran past the time budget (answered with 504, or as that item's error)."""


@dataclass
class _Item:
    key: Hashable
    payload: object
    future: asyncio.Future = field(repr=False)


#: run_group(key, payloads) -> one result or Exception per payload, in order
RunGroup = Callable[[Hashable, list], list]


class DynamicBatcher:
    #: model calls past their budget that may still run in the background; beyond, the batcher waits
    MAX_ABANDONED = 2

    def __init__(
        self,
        run_group: RunGroup,
        max_batch: int = 32,
        max_wait_ms: float = 10.0,
        max_queue=1024,
        item_budget_s: float | None = None,
    ):
        self.run_group = run_group
        self.item_budget = item_budget_s
        self.max_batch = max_batch
        self.max_wait = max_wait_ms / 1000
        self.max_queue = max_queue
        self._queue: deque[_Item] = deque()
        self._arrived: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deid-model")
        #: model calls past their budget, still running in an abandoned thread
        self._abandoned: list[asyncio.Future] = []
        #: counters for /health and the load benchmark
        self.stats = {"batches": 0, "items": 0, "largest_batch": 0, "busy": False, "over_budget": 0}

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._arrived = asyncio.Event()
        self._task = self._loop.create_task(self._worker())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for item in self._queue:
            if not item.future.done():
                item.future.set_exception(QueueFull("the server is shutting down"))
        self._queue.clear()
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def run_in_model_thread(self, fn, *args):
        """Run ``fn`` in the model thread (between batches), e.g. to load the pipeline."""
        return await self._loop.run_in_executor(self._executor, fn, *args)

    @property
    def waiting(self) -> int:
        return len(self._queue)

    async def submit(self, key: Hashable, payloads: Sequence) -> list:
        """Results (or exceptions, returned, not raised) of ``payloads``; raises QueueFull when they do not
        fit. Safe to call from another event loop (e.g. the UI's): it hops to the batcher's loop."""
        if self._loop is None:
            raise RuntimeError("DynamicBatcher.start() was not called")
        if asyncio.get_running_loop() is not self._loop:
            future = asyncio.run_coroutine_threadsafe(self.submit(key, payloads), self._loop)
            return await asyncio.wrap_future(future)
        if len(self._queue) + len(payloads) > self.max_queue:
            raise QueueFull(f"{len(self._queue)} texts are waiting (at most {self.max_queue})")
        items = [_Item(key, payload, self._loop.create_future()) for payload in payloads]
        self._queue.extend(items)
        self._arrived.set()
        return await asyncio.gather(*(item.future for item in items), return_exceptions=True)

    async def _next_batch(self) -> list[_Item]:
        while not self._queue:
            self._arrived.clear()
            await self._arrived.wait()
        deadline = self._loop.time() + self.max_wait
        while len(self._queue) < self.max_batch:
            remaining = deadline - self._loop.time()
            if remaining <= 0:
                break
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), remaining)
            except TimeoutError:
                break
        batch = [self._queue.popleft() for _ in range(min(self.max_batch, len(self._queue)))]
        return [item for item in batch if not item.future.done()]  # a client that gave up is skipped

    async def _worker(self) -> None:
        while True:
            batch = await self._next_batch()
            if not batch:
                continue
            self.stats["busy"] = True
            started = time.perf_counter()
            try:
                results = await self._run_within_budget(batch)
            except Exception as exc:  # noqa: BLE001 - the worker must survive anything
                results = [exc] * len(batch)
            finally:
                self.stats["busy"] = False
            for item, result in zip(batch, results):
                if item.future.done():
                    continue
                if isinstance(result, BaseException):
                    item.future.set_exception(result)
                else:
                    item.future.set_result(result)
            self.stats["batches"] += 1
            self.stats["items"] += len(batch)
            self.stats["largest_batch"] = max(self.stats["largest_batch"], len(batch))
            # sizes and times only: never a text
            log.info("batch of %d item(s) in %.1f ms", len(batch), 1000 * (time.perf_counter() - started))

    @property
    def abandoned(self) -> int:
        """Model calls past their budget that are still running in the background."""
        self._abandoned = [call for call in self._abandoned if not call.done()]
        return len(self._abandoned)

    async def _run_within_budget(self, batch: list[_Item]) -> list:
        """The batch's results from the model thread; `OverBudget` for each item when the call runs past
        ``item_budget`` times its size (then later batches run in a fresh thread)."""
        while self.abandoned >= self.MAX_ABANDONED:  # bounded background work: wait for one to finish
            await asyncio.wait(self._abandoned, return_when=asyncio.FIRST_COMPLETED)
        call = self._loop.run_in_executor(self._executor, self._run, batch)
        if self.item_budget is None:
            return await call
        budget = self.item_budget * len(batch)
        try:
            return await asyncio.wait_for(asyncio.shield(call), budget)
        except TimeoutError:
            self._abandoned.append(call)
            call.add_done_callback(_drop_result)
            self._executor.shutdown(wait=False)  # its thread ends when the call does
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deid-model")
            self.stats["over_budget"] += 1
            log.warning("a batch of %d item(s) ran past its time budget of %.1f s", len(batch), budget)
            error = OverBudget(
                f"over this server's time budget ({self.item_budget:g} s per text); a shorter text may pass"
            )
            return [error] * len(batch)

    def _run(self, batch: list[_Item]) -> list:
        groups: dict[Hashable, list[int]] = {}
        for n, item in enumerate(batch):
            groups.setdefault(item.key, []).append(n)
        results: list = [None] * len(batch)
        for key, positions in groups.items():
            try:
                out = self.run_group(key, [batch[n].payload for n in positions])
                if len(out) != len(positions):
                    raise RuntimeError(f"run_group returned {len(out)} results for {len(positions)} items")
            except Exception as exc:  # noqa: BLE001 - reported per item
                out = [exc] * len(positions)
            for n, result in zip(positions, out):
                results[n] = result
        return results


def _drop_result(call: asyncio.Future) -> None:
    """Consume an abandoned call's outcome (an exception of it is not "never retrieved")."""
    if not call.cancelled():
        call.exception()
