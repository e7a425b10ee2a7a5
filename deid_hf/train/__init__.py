"""Training scripts run with accelerate: the DP paraphraser (``paraphraser``, a LoRA adapter by default) and
the learned detector (``detector``), on one loop (``loop``). The default models they make ship in
``deid_hf/hub``; these reproduce them or make new ones."""
