"""The data model: immutable values and the formats that spell them.

Operator names, kernel keys, schemas, kernel yaml entries, selections,
programs and resolutions. Nothing here reads files or imports the rest of
etsb: readers build these values, stages compute new ones from them, and
emitters turn them into text.
"""
