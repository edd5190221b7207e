"""The fixed rule that splits libraries new to the corpus into a development half and a sealed half.

Issue 23 asks whether the static pass is right on code its rules were never tuned on. So the
new libraries were split before anyone read their code, by a rule fixed in advance: a library
is **sealed** when the first byte of the SHA-256 of its PyPI name (as listed, lower case) is
odd. Sealed libraries are labelled by reading the code, never by looking at the pass's
findings there, and are scored once, at the end of a round (``real_world.py --sealed``).
Every other new library is development: its labels may be read by whoever changes the rules.
The libraries already in the corpus before issue 23 are development, whatever the hash says
(the rules were tuned on them). A library added later goes through the same rule.
"""

from __future__ import annotations

import hashlib

ISSUE_23_LIBRARIES: tuple[str, ...] = (
    "e3nn-jax", "jax-dataclasses", "jaxlie", "dynamiqs", "jwave", "exojax", "jaxoplanet", "cryojax",
    "galax", "coordinax", "jinns", "jaxgcrl", "jaxatari", "gfnx", "laplax", "efax", "jax-galsim",
    "jaxspec", "cuthbert", "jax-privacy", "easydel", "fjformer", "genjax", "google-metrax", "kheperax",
    "evorl-jax", "ludax", "jaxued", "equimo", "inox", "linox", "coreax", "geometric-kernels", "jax-fdm",
    "exponax", "apebench", "hj-reachability", "jaxdecomp", "jaxkan", "klujax", "jax-finufft", "jaxpm",
    "navix", "jaxwavelets",
)
"""The libraries issue 23 lists, in its order and spelling: the names the rule was fixed on."""


def is_sealed(name: str) -> bool:
    """Whether the library ``name`` (its PyPI name as listed) belongs to the sealed half."""
    return hashlib.sha256(name.lower().encode()).digest()[0] % 2 == 1
