"""One exception class per layer; messages name the object at fault."""


class G5netError(Exception):
    """Base of every error g5net reports to the user (exit status 2)."""


class SpecError(G5netError):
    """The experiment spec is invalid; the message names the key."""


class ArtifactError(G5netError):
    """A kernel, disk image or tool could not be found or built."""


class EngineError(G5netError):
    """An engine could not run an experiment."""


class GuestError(G5netError):
    """The guest's console output could not be understood."""


class RunnerError(G5netError):
    """A sweep runner (local pool or SLURM) failed."""


class StatsParseError(G5netError):
    """A gem5 stats file is malformed; the message names file and line."""


class ReportError(G5netError):
    """A run or sweep directory cannot be read as asked (report, check, stats)."""


class CheckError(G5netError):
    """An expectations file is malformed; the message names the line or key."""


class BootError(EngineError):
    """The hosts did not boot: the engine gave up before each had printed its boot
    marker (a run that fails so is `failed:boot`)."""


class Gem5Error(EngineError):
    """gem5 is missing, unsuitable, or failed to run."""


class OutputError(G5netError):
    """The output folder cannot take a run or sweep: read-only, full, a name too long."""


class StoreError(G5netError):
    """A path holds no run: not a run directory, a sweep directory or a folder of runs."""


class CorruptRunError(StoreError):
    """A run directory's record is damaged (truncated, empty or binary, as a power
    cut can leave it); the message names the file."""


class UsageError(G5netError):
    """The command line combines flags that do not go together; the message names them."""


class StudyError(G5netError):
    """A built-in study, its files or its committed results are missing or wrong."""


# The most of one value an error quotes: a line stays a line, however large
# the value a file held.
QUOTE_CHARS = 80


def quoted(value: object) -> str:
    """`value` as an error line quotes it: its repr (which escapes newlines),
    cut to QUOTE_CHARS with how long it was."""
    text = repr(value)
    if len(text) <= QUOTE_CHARS:
        return text
    return f"{text[:QUOTE_CHARS]}... ({len(text)} characters)"


def key_text(key: object) -> str:
    """A key a file named, as an error line names it: as it is where it is a
    plain word, else quoted (a newline or a megabyte of key stays one short line)."""
    if isinstance(key, str) and 0 < len(key) <= QUOTE_CHARS and key.isascii() and key.isprintable() \
            and " " not in key:
        return key
    return quoted(key)


def os_error_text(e: OSError) -> str:
    """`path: reason` for an OSError, the way every one-line error names a path."""
    where = f"{e.filename}: " if e.filename is not None else ""
    return f"{where}{e.strerror or e}"
