"""argparse value types shared by the `npu-bridge` subcommands' parsers (`cli_args`,
`memory_cli`, `partition_cli`), in a module of their own so none of those imports another."""
import argparse


def bounded(kind, low, above=False):
    """argparse type: `kind` (int or float) at least `low` (`above`: more than `low`), finite.
    Anything else is a usage error naming the flag, the value and the bound, before the
    script runs (a negative --top once listed all but the last tensors, a --collective-timeout
    of 0 meant the default 120 s)."""
    want = "%s %s%s" % ("a number" if kind is float else "a whole number",
                        "above " if above else "", low if above else "%s or more" % low)

    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not %s" % (text, want)) from None
        if value != value or value in (float("inf"), float("-inf")) or (
                value <= low if above else value < low):
            raise argparse.ArgumentTypeError("give %s, got %s" % (want, text))
        return value
    parse.__name__ = kind.__name__   # argparse names the type in its own messages
    return parse
