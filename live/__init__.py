"""The live pipeline both games share: write, settle, build, compare and store, push, read.

Modules by concern (nothing is re-exported here: import from the module that owns a name):
``write`` (``LiveGame``: lock, ``now``, the action, ``publish``), ``store`` (compare with the
stored states, store the changed keys, the stored reads), ``rows`` (values stored row by row),
``caches`` (the process's caches of stored texts and heads), ``queries`` (the constant SQL),
``codec`` (the one JSON encoding), ``messages`` (audiences, group names, envelopes, the push),
``delta`` (a push's patch), ``batch`` (group commit), ``versioned`` (the set-up cache),
``registry`` (the formats' adapters), ``consumers`` (the state sockets' base).
"""
