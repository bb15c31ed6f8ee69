"""Adapter-level options (`iterations_per_loop`, `use_off_line`, ...) set by a script have a
source like the GE-level ones, so the `npu-bridge run` summary shows them (they used to look
unset: "(no options set by the script)")."""
from npu_bridge.tools import report
from npu_bridge.ge import NpuConfigError, resolve


def test_adapter_options_have_sources():
    opts = resolve({"iterations_per_loop": 10, "use_off_line": True})
    assert opts.adapter_options["iterations_per_loop"] == "10"
    assert opts.sources["iterations_per_loop"].startswith("parameter_map")
    assert "iterations_per_loop" in opts.sources["iterations_per_loop"]
    assert opts.sources["use_off_line"].startswith("parameter_map")
    # an adapter key left alone is an adapter default, as at the other levels
    assert opts.sources["mix_compile_mode"] == "adapter default"
    for key in opts.adapter_options:
        assert key in opts.sources, key


def test_summary_shows_adapter_options_set_by_the_script():
    conf = report.configuration_dict(resolve({"iterations_per_loop": 10, "use_off_line": True}))
    lines = report.configuration_lines(conf)
    text = "\n".join(lines)
    assert "(no options set by the script)" not in text
    rows = [l.split() for l in lines]
    assert ["adapter", "iterations_per_loop", "10"] == rows[1][:3]
    assert any(r[:2] == ["adapter", "use_off_line"] for r in rows)
    # defaults stay hidden
    assert not any(r[:2] == ["adapter", "mix_compile_mode"] for r in rows)


def test_refused_configuration_whose_only_option_was_refused_says_so():
    # issue 25 item 5: "(no options set by the script)" read as if the script set nothing
    try:
        resolve({"precision_mode": "mix_precision"})
    except NpuConfigError as err:
        conf = report.configuration_dict(err.ge_options, refused=True)
    lines = report.configuration_lines(conf)
    assert "  (no options set by the script)" not in lines
    # issue 29 item 5's refused rows (main) cover it: the value as given, not sent
    rows = [l.split() for l in lines]
    assert rows[1][:4] == ["refused", "precision_mode", "'mix_precision'", "not"], rows
    assert any(l.lstrip().startswith("error E10001 [precision_mode]") for l in lines), lines
