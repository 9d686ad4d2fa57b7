"""Models: which ones Rewind knows, getting them, choosing one, and turning text into vectors.

- what each model is: specs.py (models.json, as records) and catalog.py (an answering
  model's memory and the facts a person chooses by);
- what is on disk: installed.py (status, checksums);
- getting them: packages.py (the offline defaults, out of PyPI wheels), download.py and
  sources.py (`rewind models pull`, from the publisher or a mirror), e5_convert.py (the
  multilingual model's graph, made at install);
- choosing: recommend.py (the answering model that suits this machine);
- embedding: embedder.py (the `Embedder` contract, ONNX and a fake), multilingual.py,
  pieces.py (passages longer than a model's window).

Both the embedding and the answering models are chosen here; answers/llm.py runs the
latter. This package must never store anything but model files (vectors go to the store
through their callers), and never know about search, answers or the browser.
"""
