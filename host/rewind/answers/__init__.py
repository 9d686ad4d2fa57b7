"""Answers: a question's sources retrieved through search (context), packed into the
model's budget (packing), put to the local language model (llm) in words prompt.py
chooses, and every sentence of the answer checked against its sources (citations);
answer.py runs the whole, facets.py optionally splits a question first."""
