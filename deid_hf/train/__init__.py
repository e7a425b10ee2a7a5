"""Training scripts run with accelerate: the DP paraphraser (``paraphraser``)."""
