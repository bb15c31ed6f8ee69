"""Every source a message or table cites is one a user can trust and find (issue 17 defect 6):
the seeds (vendor pages), the vendor's documentation or toolkit, the real adapter
(hicann/tensorflow) or GE's own repositories (hicann/ge, mirror-cann/ge), the reference
facts gathered from those, or the project's own rule. NPB140 used to cite two personal
forks; no repository other than those may be named anywhere in the package or its docs."""
import os
import re

import pytest

from npu_bridge.ge import catalog, products
from npu_bridge.ge.diagnostics import CODES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPOSITORIES = ("hicann/tensorflow", "hicann/ge", "mirror-cann/ge")
# What a source names, in the words sources use for each allowed kind.
KINDS = ("seed", "vendor", "docs/en/", "CANN", " docs", "adapter", "hicann/tensorflow",
         "hicann/ge", "mirror-cann/ge", "GE", "reference ", "project rule", "npu_bridge/",
         "docs/options.md", "docs/reference.md",
         "tensorflow core/framework/")   # TensorFlow's own protos (AttrValue: NBL010/NBL011)
# A repository named as a URL or as owner/name:path (how the forks were cited).
REPO_URL = re.compile(r"(?:github|gitee|gitcode|gitlab)\.com/([\w.-]+/[\w.-]+)")
REPO_PATH = re.compile(r"(?<![\w./-])([A-Za-z][\w.-]*/[\w.-]+):(?=[A-Za-z_./])")


def _sources():
    out = [("code %s" % code, row.source) for code, row in CODES.items()]
    out += [("option %s" % (row.key or row.ge_key), row.source) for row in catalog.OPTIONS]
    out += [("product %s" % p.id, p.memory_source) for p in products.PRODUCTS.values()]
    out += [("SoC %s" % soc, source) for soc, (_, source) in products.SOC_MEMORY.items()]
    for cls, rule in catalog.CLASS_PRODUCTS.items():
        out.append(("class %s" % cls, rule[1]))
    return out


@pytest.mark.parametrize("what, source", _sources(), ids=[w for w, _ in _sources()])
def test_every_source_is_of_an_allowed_kind(what, source):
    assert source and any(kind in source for kind in KINDS), (what, source)
    for found in REPO_URL.findall(source) + REPO_PATH.findall(source):
        assert found in REPOSITORIES, (what, found)


def _files():
    for top in ("npu_bridge", "docs"):
        for folder, _, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                if name.endswith((".py", ".md")):
                    yield os.path.join(folder, name)
    yield os.path.join(ROOT, "README.md")


def test_no_other_repository_is_cited_anywhere():
    bad = []
    for path in _files():
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        for found in REPO_URL.findall(text) + REPO_PATH.findall(text):
            if found not in REPOSITORIES and not found.startswith(("actions/", "github/")):
                bad.append((os.path.relpath(path, ROOT), found))
    assert bad == []


def test_the_check_finds_a_fork():
    # the citations NPB140 carried before the fix
    old = ("leideng/CANN-8.1.RC1:Ascend/ascend-toolkit/8.1.RC1/aarch64-linux/data/"
           "platform_config/Ascend910B1.ini; xiaobingling93-pixel/Ascend-mssanitizer:csrc/core")
    assert REPO_PATH.findall(old) == ["leideng/CANN-8.1.RC1", "xiaobingling93-pixel/Ascend-mssanitizer"]
    assert REPO_URL.findall("github.com/leideng/CANN-8.1.RC1 x") == ["leideng/CANN-8.1.RC1"]
