"""deid-hf."""
