"""attnlab: an interactive lesson on attention and Transformers for people who build robot policies.

`attnlab.nn` is the engine (NumPy, hand-written backward passes); `attnlab.tabletop` the
training task of FIG 2; `attnlab.figures` every other figure as a pure computation;
`attnlab.claims` the lesson's numbers, measured; `attnlab.web` the local lesson server.
"""

__version__ = "0.1.0"

import os as _os

# The engine works on tiny matrices (8 × 8, 32 × 5 × 8): there, BLAS threads cost more in
# start-up and synchronisation than they save. One thread, unless the user says otherwise.
# This must run before NumPy is first imported to take effect.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")
