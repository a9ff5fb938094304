"""`cdmasim docs [NAME]`: the documentation that ships with cdmasim (the
checkout's docs/ folder, cdmasim/docs/ in an installed package)."""


def register(sub):
    p = sub.add_parser("docs", help="list the documentation pages, or print one",
                       description="List the documentation that ships with cdmasim, with where it is installed, "
                                   "or print one page (e.g. cdmasim docs scenario).")
    p.add_argument("name", nargs="?", metavar="NAME", help="a page to print (scenario, sweeps, reproduce, ...)")
    p.set_defaults(func=main)


def main(args):
    import pathlib

    from ..errors import InputError

    folder = pathlib.Path(__file__).resolve().parents[1] / "docs"
    pages = sorted(folder.glob("*.md"))
    if args.name is None:
        for p in pages:
            first = next((ln.lstrip("# ").strip() for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()), "")
            print(f"{p.stem:<13} {first}")
        print(f"(in {folder})")
        return 0
    stem = args.name[:-3] if args.name.endswith(".md") else args.name
    match = [p for p in pages if p.stem.lower() == stem.lower()]
    if not match:
        raise InputError(f"no documentation page '{args.name}' (pages: {', '.join(p.stem for p in pages)})")
    print(match[0].read_text(encoding="utf-8"), end="")
    return 0
