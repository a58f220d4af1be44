"""Why `m5.simulate()` returned: the causes g5net's hosts produce."""

import enum


class ExitCause(enum.Enum):
    M5_EXIT = "m5_exit instruction encountered"
    CHECKPOINT = "checkpoint"
    M5_FAIL = "m5_fail instruction encountered"
    TICK_LIMIT = "simulate() limit reached"
    USER_INTERRUPT = "user interrupt received"
    OTHER = ""

    @classmethod
    def of(cls, cause: str) -> "ExitCause":
        for c in cls:
            if c.value == cause:
                return c
        return cls.OTHER
