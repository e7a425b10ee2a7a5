"""`deid-hf serve`: an HTTP service (FastAPI + uvicorn) with dynamic batching and a Gradio UI at ``/ui``.

Needs the ``serve`` extra (``pip install deid-hf[serve]``): its imports sit behind `deid_hf.extras.extra`,
which names the extra when a package is missing. ``config`` and ``batching`` import no web framework.
"""
