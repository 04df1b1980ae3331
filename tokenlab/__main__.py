"""`python -m tokenlab`, and the launcher form hooks and rewrites run: `<python> -S
<folder>/tokenlab/__main__.py …` (see `agent/launcher.py`).

An agent's shell command pays for two tokenlab processes, the hook and `tokens run`, and
more than half of a bare Python's start-up is `site`, chiefly an editable install's import
finder; `-m` adds `runpy` on top. So hooks and rewrites run this file by absolute path with
`-S`. Python then puts this file's own folder first on `sys.path`, where the package's
modules would shadow others by name: it is replaced by the folder that holds the package,
taken from this file's location (never from input or the working directory), after the
standard library. `site` is set up only when an import finds nothing without it, which a
PreToolUse hook or a `run` answered by the warm worker never does; anything else (typer,
the pipeline's dependencies) sets it up once, and from then on runs as under a normal
start.
"""

import sys

if __spec__ is None:  # run by its path, not with `-m`

    class _SiteWhenNeeded:
        """The last finder on `sys.meta_path`: the first import nothing else finds sets up
        `site` (this Python's site-packages, `.pth` files, the user's site folder, as a
        normal start does) and is looked up again. A standard module this platform lacks
        (`nt`, `_winapi`, probed inside the standard library's own imports) is never in
        site-packages: it is left not found, as it would be with `site`. Nor is what a
        standard module probes for as it loads (Jython's `org.python.core`, which `copy`
        and `pickle` try): the standard library loads without site-packages."""

        @staticmethod
        def find_spec(name: str, path: object = None, target: object = None) -> object:
            if name.partition(".")[0] in sys.stdlib_module_names or _loading_a_standard_module():
                return None
            sys.meta_path.remove(_SiteWhenNeeded)  # type: ignore[arg-type]
            import site

            site.main()
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                spec = find(name, path, target) if find is not None else None
                if spec is not None:
                    return spec
            return None

    def _loading_a_standard_module() -> bool:
        """Whether the import looked up is made by a standard module's own body as it loads."""
        frame = sys._getframe(2)  # past `find_spec`: the import system's frames, then the importer
        while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
        if frame is None or frame.f_code.co_name != "<module>":
            return False
        return str(frame.f_globals.get("__name__", "")).partition(".")[0] in sys.stdlib_module_names

    def _put_package_on_path() -> None:
        import os

        if not sys.flags.safe_path:
            del sys.path[0]  # this file's folder, put there by Python
        sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        if sys.flags.no_site:
            sys.meta_path.append(_SiteWhenNeeded)  # type: ignore[arg-type]

    _put_package_on_path()

from tokenlab.entry import main  # noqa: E402 (the package is on the path only from here)

main()
