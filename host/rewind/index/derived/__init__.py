"""The derived indexes: what search reads fast, rebuilt from the store whenever needed.

The tantivy BM25 index (text_index.py; a page's language from languages.py picks its
analysis in analysis.py; integrity.py checks its files) and the dense vector snapshot
(vectors.py; 1-bit codes and int8 rows in codes.py, the memory-mapped file in
vector_file.py). Each remembers the store's change sequence it applied and catches up.
This package must never hold anything the store cannot rebuild, nor write to the store.
"""
