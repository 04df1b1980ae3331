"""The tokenizer under the import path it had before the package was laid out in layers.

Scripts outside the package (benchmarks, speed smoke tests, users' notebooks) import
`tokenlab.tokens`; the code now lives in `tokenlab.counting.tokens`, and this module is
that same module object, so both names share one encoding and one cache.
"""

import sys

from tokenlab.counting import tokens

sys.modules[__name__] = tokens
