"""`cdmasim examples [list|copy NAME... --to DIR|path NAME]`: the example
scenarios and sweeps that ship with cdmasim (python/cdmasim/examples_data.py)."""


def register(sub):
    p = sub.add_parser("examples", help="list the example scenarios and sweeps, or copy them to a folder",
                       description="List the examples that ship with cdmasim, copy them into a folder to edit, "
                                   "or print where one is installed.")
    cs = p.add_subparsers(dest="examples_cmd")
    cs.add_parser("list", help="name and one line per example (the default)")
    c = cs.add_parser("copy", help="copy examples (all, or those named) into a folder; never overwrites")
    c.add_argument("names", nargs="*", metavar="NAME", help="examples to copy (default: all)")
    c.add_argument("--to", metavar="DIR", default="cdmasim-examples", help="folder (default cdmasim-examples)")
    w = cs.add_parser("path", help="print the installed path of an example")
    w.add_argument("name", metavar="NAME", help="an example's name, as `cdmasim examples` lists it")
    p.set_defaults(func=main)


def main(args):
    from .. import examples_data as ex
    from .._files import check_output_dir

    cmd = args.examples_cmd or "list"
    if cmd == "path":
        print(ex.path(args.name))
    elif cmd == "copy":
        for n in args.names:
            ex.path(n)  # an unknown name is refused before anything is copied
        check_output_dir("--to", args.to)
        for f in ex.copy(args.to, args.names):
            print(f)
    else:
        width = max(len(n) for n in ex.names())
        for n in ex.names():
            print(f"{n:<{width}}  {ex.summary(n)}")
    return 0
