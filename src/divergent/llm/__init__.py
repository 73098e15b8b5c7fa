"""Language models as engines and judges: an OpenAI-compatible client with a persistent cache.

``chat`` is the protocol every feature uses; ``client`` talks to the endpoint; ``config`` resolves
model, base URL and key from flags, environment and a config file; ``costs`` prices tokens;
``extract`` pulls code out of markdown answers; ``prompts/`` holds the prompt templates as files.
"""
