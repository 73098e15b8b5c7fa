"""Language models as engines and judges: an OpenAI-compatible client with a persistent cache.

``chat`` is the protocol every feature uses; ``client`` talks to the endpoint; ``config`` resolves
model, base URL and key from flags, environment and a config file; ``costs`` prices tokens;
``extract`` pulls code out of markdown answers; ``prompts/`` holds the prompt templates as files.

Where a change goes: a prompt is a template file in ``prompts/``; how an endpoint's answer is read (caps,
checks) only in ``boundary``; retries, deadlines and the cache in ``client``; the SDK only in ``transport``.
"""
