"""Semantic self-consistency over a benchmark's recorded LLM samples (ProbeGen, Sec. 5.1, with the
non-LLM engines: the paper's "PBT" row): per task, one model's samples clustered by behaviour, the
largest class picked, and pass@1 of the pick on the task's tests against a random sample's.

* :mod:`~divergent.bench.selfconsistency.solve`: one (model, task): the clustering, the pick, the
  tests (``SampleClusterer``, the solver);
* :mod:`~divergent.bench.selfconsistency.run`: the stored, resumable run over many tasks on an
  executor, and its scorer (``summarize``, ``summary_json``);
* :mod:`~divergent.bench.selfconsistency.html`: the ``--html`` page.
"""
