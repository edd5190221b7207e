"""A child script's preamble that counts jax's own compiles (every "Compiling NAME" jax logs with jax_log_compiles).

The recorder tests prepend it to the scripts they run, so that the recorder's counts are
compared with jax's; the script prints ``JAX COMPILES {json}`` at its end with `REPORT`.
"""

COUNT_COMPILES = """
import collections, json, logging
import jax, jax.numpy as jnp

COMPILES = collections.Counter()

class Count(logging.Handler):
    def emit(self, record):
        if record.msg.startswith("Compiling %s") and record.args:
            COMPILES[str(record.args[0])] += 1

jax.config.update("jax_log_compiles", True)
logger = logging.getLogger("jax._src.interpreters.pxla")
logger.addHandler(Count())
logger.propagate = False
"""

REPORT = 'print("JAX COMPILES", json.dumps(dict(COMPILES)))\n'
