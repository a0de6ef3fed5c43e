"""The bottom of the dependency graph: plain Python, no Django.

What every app agrees on lives here: the item payloads (`items`), spans and
their offset rules (`spans`), the released SemEval file formats (`semeval`),
the error every bad input is reported with (`errors`), and the one extension
mechanism apps plug into each other with (`registry`).
"""
