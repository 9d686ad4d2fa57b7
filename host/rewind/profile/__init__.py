"""One profile's history, behind one door: `engine.Rewind` composes the store, the derived
indexes, the embedder and the write lock, and holds the parts that work on them
(forgetting, inspection, held pages, the embedding job's record) as collaborators given
only what they need. The job that re-embeds (reembedding.py) sits above the engine.
This package must never import a door (native, cli, mcp) or answers; this file imports
nothing, so a light module here (settings, listing) does not load the engine.
"""
