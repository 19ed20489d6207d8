"""Importers that map public tool formats onto `Tool`, one module per format.

Every input record ends up either as a `Tool` or as a `Rejection` that says which record, which
field and why, so an import can always be accounted for. A file whose overall structure is wrong
(not a list, a query record whose `api_list` is not a list) raises `InputError` instead: then no
record in it can be trusted.
"""
