"""Write the model-metadata overlay for OME's model catalogue (``--model-metadata ome:VERSION``).

    python scripts/ome_model_metadata.py ../shared/ome v0.1.5 > omerender/catalogue/ome-v0.1.5.yaml

OME's shipped ClusterBaseModels carry none of the fields its model agent fills in a cluster
(modelFormat, modelFramework, modelArchitecture, quantization, modelParameterSize), so offline no
runtime matches them. This script derives those facts from the catalogue itself, so that the
overlay agrees with upstream's runtimes by construction:

- the runtimes that serve a model: the one each upstream sample names for it; runtimes named
  ``srt-MODEL``/``vllm-MODEL`` (with ``-pd``/``-grpc`` variants) or whose name ends with the model's
  after a vendor prefix; runtimes whose ``--served-model-name`` is the model's Hugging Face repository;
- of these, the one whose first ``supportedModelFormats`` entry satisfies most of the model's
  samples (upstream's runtimes disagree on some models' transformers version), else a plain
  ``srt-MODEL``, else the first by name, gives the format, framework (name and version, which OME
  compares exactly), architecture and quantization of that entry;
- the size is the count in the repository's name (``Qwen3-Embedding-0.6B``: 0.6B, ``8x7B``: 56B) when
  that runtime's ``modelSizeRange`` holds it, else the middle of the range: a stand-in for the count
  the agent reads from the weights, good for matching only.

Models no runtime serves are left out (listed in the file's header). Every runtime and model file
is read, listed by upstream's ``kustomization.yaml`` or not: upstream's kustomizations install a
default subset, and users add to them the models they serve.

Each model that one of the config.json files OME's model agent parses in its tests is for (``../shared/ome/
modelconfig``, OME's ``pkg/hfutil/modelconfig/testdata``) also gets ``modelConfiguration``: the heads, KV heads,
parameter count, context length, dtype and quantization method OME's ``pkg/hfutil/modelconfig`` reads from that
file, for the serving checks (``ome_model_facts.py`` says how, file by file). ``modelParameterSize`` stays the
matching stand-in above; the checks read only ``modelConfiguration.parameter_count``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import yaml

from omerender.selection.versions import parse_model_size

PREFIXES = ("srt-", "vllm-")
VARIANTS = ("", "-pd", "-grpc", "-pd-grpc")


def documents(folder: Path, kind: str) -> list[dict[str, Any]]:
    """Every ``kind`` object in ``folder``'s YAML files, listed by its kustomization or not (the catalogue is
    every model upstream configures); a name defined twice keeps its first file, in path order."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(p for p in folder.rglob("*.y*ml") if p.name not in ("kustomization.yaml", "kustomization.yml")):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if isinstance(doc, dict) and doc.get("kind") == kind:
                found.setdefault(str((doc.get("metadata") or {}).get("name")), doc)
    return list(found.values())


def served_names(spec: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for component in ("engineConfig", "decoderConfig"):
        runner = (spec.get(component) or {}).get("runner") or {}
        words = [str(w) for w in (runner.get("command") or []) + (runner.get("args") or [])]
        for i, word in enumerate(words):
            if word == "--served-model-name" and i + 1 < len(words):
                names.add(words[i + 1].lower())
            names.update(m.lower() for m in re.findall(r"--served-model-name[ =](\S+)", word))
    return names


def bare(runtime: str) -> str:
    return next((runtime[len(p) :] for p in PREFIXES if runtime.startswith(p)), runtime)


def serves(runtime: dict[str, Any], model: str, repo: str) -> bool:
    name = bare(runtime["metadata"]["name"])
    stems = {name[: -len(v)] if v and name.endswith(v) else name for v in VARIANTS}
    return any(s == model or model.endswith("-" + s) for s in stems) or repo in served_names(runtime["spec"])


def size_in(repo: str) -> float | None:
    name = repo.rsplit("/", 1)[-1]
    experts = re.search(r"(\d+)x(\d+(?:\.\d+)?)[Bb](?![a-zA-Z])", name)
    if experts:
        return int(experts.group(1)) * float(experts.group(2)) * 1e9
    found = re.findall(r"(?<![\d.])(\d+(?:\.\d+)?)([BbMm])(?![a-zA-Z])", name)
    if not found:
        return None
    number, unit = found[-1]
    return float(number) * (1e9 if unit in "Bb" else 1e6)


def shown(size: float) -> str:
    return f"{size / 1e9:.4g}B" if size >= 1e9 else f"{size / 1e6:.4g}M"


def model_size(repo: str, runtime_spec: dict[str, Any]) -> str | None:
    given = size_in(repo)
    bounds = runtime_spec.get("modelSizeRange") or {}
    if not bounds.get("min") or not bounds.get("max"):
        return shown(given) if given else None
    low, high = parse_model_size(str(bounds["min"])), parse_model_size(str(bounds["max"]))
    if given is not None and low <= given <= high:
        return shown(given)
    return shown((low + high) / 2)


def first_format(runtime: dict[str, Any]) -> tuple[str, str, str]:
    """The facts of the runtime's first entry that OME's matcher compares exactly: architecture, framework version
    and quantization (both set and equal, or both unset: pkg/runtimeselector/matcher.go:308-323 at 17b77eda)."""
    first = runtime["spec"]["supportedModelFormats"][0]
    framework = str((first.get("modelFramework") or {}).get("version"))
    return str(first.get("modelArchitecture")), framework, str(first.get("quantization"))


def preference(
    runtime: dict[str, Any],
    serving: list[dict[str, Any]],
    wanted: list[str | None],
    by_name: dict[str, dict[str, Any]],
    model: str,
) -> tuple[int, bool, str]:
    """How many of the model's samples the runtime's facts satisfy (a named runtime with the same first format; an
    auto-selected one when a serving runtime that auto-selects has it), then a plain ``srt-MODEL``, then the name
    (reversed, so that max picks the first)."""
    facts = first_format(runtime)
    auto = {first_format(r) for r in serving if r["spec"]["supportedModelFormats"][0].get("autoSelect") is not False}
    met = sum(
        1 for n in wanted if (n is None and facts in auto) or (n in by_name and first_format(by_name[n]) == facts)
    )
    name = runtime["metadata"]["name"]
    return met, name == f"srt-{model}", "".join(chr(0x10FFFF - ord(c)) for c in name)


def overlay(ome: Path) -> tuple[dict[str, dict[str, Any]], list[str]]:
    runtimes = sorted(documents(ome / "runtimes", "ClusterServingRuntime"), key=lambda r: r["metadata"]["name"])
    models = sorted(documents(ome / "models", "ClusterBaseModel"), key=lambda m: m["metadata"]["name"])
    wanted: dict[str, list[str | None]] = {}  # model -> the runtime each sample names (None: auto-selected)
    for isvc in documents(ome / "samples", "InferenceService"):
        model, runtime = (isvc["spec"].get("model") or {}).get("name"), (isvc["spec"].get("runtime") or {}).get("name")
        if model:
            wanted.setdefault(model, []).append(runtime)
    by_name = {r["metadata"]["name"]: r for r in runtimes}
    entries: dict[str, dict[str, Any]] = {}
    left_out: list[str] = []
    for model in models:
        name = model["metadata"]["name"]
        repo = str((model["spec"].get("storage") or {}).get("storageUri", "")).removeprefix("hf://").lower()
        serving = [r for r in runtimes if r["spec"].get("supportedModelFormats") and serves(r, name, repo)]
        serving += [by_name[n] for n in wanted.get(name, []) if n in by_name and by_name[n] not in serving]
        chosen = max(serving, key=lambda r: preference(r, serving, wanted.get(name, []), by_name, name), default=None)
        if chosen is None:
            left_out.append(name)
            continue
        first = chosen["spec"]["supportedModelFormats"][0]
        entry: dict[str, Any] = {}
        for field in ("modelFormat", "modelFramework"):
            if first.get(field):
                entry[field] = {k: str(v) for k, v in first[field].items() if k in ("name", "version")}
        for field in ("modelArchitecture", "quantization"):
            if first.get(field):
                entry[field] = str(first[field])
        size = model_size(repo, chosen["spec"])
        if size:
            entry["modelParameterSize"] = size
        entries[name] = entry
    return entries, left_out


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    ome, version = Path(argv[1]), argv[2]
    from ome_model_facts import facts  # beside this script, on sys.path when it runs

    entries, left_out = overlay(ome)
    found = facts(ome / "modelconfig", set(entries))
    for model, configuration in found.by_model.items():
        entries[model]["modelConfiguration"] = configuration
    header = [
        f"# Model metadata for OME {version}'s model catalogue (config/models), for --model-metadata ome:{version}.",
        "# Written by scripts/ome_model_metadata.py from OME's own config/runtimes, config/models and config/samples:",
        "# each model takes the format, framework, architecture and quantization of a runtime that serves it; the",
        "# size is the one in its name when that runtime's modelSizeRange holds it, else the middle of the range:",
        "# modelParameterSize is a stand-in for runtime matching, which no serving check reads.",
        f"# No runtime serves these {len(left_out)}, so they are left out: " + ", ".join(left_out) + ".",
        f"# modelConfiguration, for {len(found.by_model)} models: what OME's pkg/hfutil/modelconfig reads from the",
        "# config.json files of its tests (pkg/hfutil/modelconfig/testdata), written by scripts/ome_model_facts.py;",
        "# dtype, context length and quantization only from a model's own file. Not used:",
        *(f"#   {note}" for note in found.left_out),
    ]
    wrapped: list[str] = []
    for given in header:
        rest = given
        while len(rest) > 110:
            cut = rest.rfind(" ", 0, 110)
            wrapped.append(rest[:cut])
            rest = "#  " + rest[cut:]
        wrapped.append(rest)
    body = yaml.safe_dump({"models": entries}, sort_keys=True, default_flow_style=None, width=120)
    sys.stdout.write("\n".join(wrapped) + "\n" + body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
