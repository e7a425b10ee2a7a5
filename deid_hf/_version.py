"""The package version, in one place: ``deid_hf.__version__`` and pyproject.toml (setuptools dynamic version)
read it; model cards record it."""

__version__ = "0.1.0"
