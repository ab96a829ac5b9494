"""Words a reply uses to say something is done, is not done yet, or is no longer wanted.

Both the offline rule model (reading a reply against a concern's goal) and the loop (reading
what a reply says about a signal) use these lists, so they live apart from either.
"""

from __future__ import annotations

import re

DONE = re.compile(
    r"完成|完了|做完|写完|搞定|弄好|(?<![太真很得])好了|提了|交了|发了|上线了|合了|"
    r"已[经]?(?:发|交|提|给)|"
    r"\bdone\b|finished|completed|\bsent\b|\bready\b|\bmerged\b|\bshipped\b",
    re.IGNORECASE,
)

NOT_YET = re.compile(
    r"还没|没有|尚未|未完成|还在|没做|\bnot yet\b|\bnot done\b|\bstill\b|"
    r"\bpending\b|\bhaven'?t\b",
    re.IGNORECASE,
)

CANCEL = re.compile(
    r"算了|不用问了|不用了|别问了|不用跟了|不需要了|取消|不跟了|"
    r"never ?mind|forget (?:about )?it|no need|cancel|drop it|don'?t bother",
    re.IGNORECASE,
)
