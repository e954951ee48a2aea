"""The typed values that flow between the stages, one module a concept.

Import them from :mod:`osrag.models`, which re-exports every one.
"""
