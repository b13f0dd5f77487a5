"""The languages the `code` strategy knows: each one's file extensions and the separators it
is cut at, coarsest first.

The separators are those LangChain's ``RecursiveCharacterTextSplitter.from_language`` uses for
each value of its ``Language`` enum, written down here as data (tests/test_code.py holds every
list to ``get_separators_for_language``). They are regular expressions, as LangChain applies
them (``from_language`` sets ``is_separator_regex=True``); each match starts the next piece,
and ``""`` means between any two characters. LangChain has no separators for Perl, so Perl is
not offered. Python is cut by its syntax tree first (see `code`); its separators serve a file
that does not parse.

Extensions are this table's own (lower case; the file name's last suffix is looked up).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Language", "LANGUAGES", "AUTO", "language_of"]

AUTO = "auto"
"""The `language` setting's default: from the file name's extension, else Python."""


@dataclass(frozen=True)
class Language:
    name: str
    label: str
    extensions: tuple[str, ...]
    separators: tuple[str, ...]


def _c_like(*first: str) -> tuple[str, ...]:
    return (*first, "\n\n", "\n", " ", "")


LANGUAGES: dict[str, Language] = {
    lang.name: lang
    for lang in (
        Language("python", "Python", (".py", ".pyi", ".pyw"), _c_like("\nclass ", "\ndef ", "\n\tdef ")),
        Language(
            "c",
            "C",
            (".c", ".h"),
            _c_like(
                "\nclass ", "\nvoid ", "\nint ", "\nfloat ", "\ndouble ", "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase "
            ),
        ),
        Language(
            "cpp",
            "C++",
            (".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx"),
            _c_like(
                "\nclass ", "\nvoid ", "\nint ", "\nfloat ", "\ndouble ", "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase "
            ),
        ),
        Language(
            "csharp",
            "C#",
            (".cs",),
            _c_like(
                "\ninterface ",
                "\nenum ",
                "\ndelegate ",
                "\nevent ",
                "\nclass ",
                "\nabstract ",
                "\npublic ",
                "\nprotected ",
                "\nprivate ",
                "\nstatic ",
                "\nreturn ",
                "\nif ",
                "\ncontinue ",
                "\nfor ",
                "\nforeach ",
                "\nwhile ",
                "\nswitch ",
                "\nbreak ",
                "\ncase ",
                "\nelse ",
                "\ntry ",
                "\nthrow ",
                "\nfinally ",
                "\ncatch ",
            ),
        ),
        Language(
            "cobol",
            "COBOL",
            (".cob", ".cbl", ".cpy"),
            (
                "\nIDENTIFICATION DIVISION.",
                "\nENVIRONMENT DIVISION.",
                "\nDATA DIVISION.",
                "\nPROCEDURE DIVISION.",
                "\nWORKING-STORAGE SECTION.",
                "\nLINKAGE SECTION.",
                "\nFILE SECTION.",
                "\nINPUT-OUTPUT SECTION.",
                "\nOPEN ",
                "\nCLOSE ",
                "\nREAD ",
                "\nWRITE ",
                "\nIF ",
                "\nELSE ",
                "\nMOVE ",
                "\nPERFORM ",
                "\nUNTIL ",
                "\nVARYING ",
                "\nACCEPT ",
                "\nDISPLAY ",
                "\nSTOP RUN.",
                "\n",
                " ",
                "",
            ),
        ),
        Language(
            "elixir",
            "Elixir",
            (".ex", ".exs"),
            _c_like(
                "\ndef ",
                "\ndefp ",
                "\ndefmodule ",
                "\ndefprotocol ",
                "\ndefmacro ",
                "\ndefmacrop ",
                "\nif ",
                "\nunless ",
                "\ncase ",
                "\ncond ",
                "\nwith ",
                "\nfor ",
                "\ndo ",
            ),
        ),
        Language(
            "go", "Go", (".go",), _c_like("\nfunc ", "\nvar ", "\nconst ", "\ntype ", "\nif ", "\nfor ", "\nswitch ", "\ncase ")
        ),
        Language(
            "haskell",
            "Haskell",
            (".hs",),
            _c_like(
                "\nmain :: ",
                "\nmain = ",
                "\nlet ",
                "\nin ",
                "\ndo ",
                "\nwhere ",
                "\n:: ",
                "\n= ",
                "\ndata ",
                "\nnewtype ",
                "\ntype ",
                "\nmodule ",
                "\nimport ",
                "\nqualified ",
                "\nimport qualified ",
                "\nclass ",
                "\ninstance ",
                "\ncase ",
                "\n| ",
                "\n= {",
                "\n, ",
            ),
        ),
        Language(
            "html",
            "HTML",
            (".html", ".htm"),
            (
                "<body",
                "<div",
                "<p",
                "<br",
                "<li",
                "<h1",
                "<h2",
                "<h3",
                "<h4",
                "<h5",
                "<h6",
                "<span",
                "<table",
                "<tr",
                "<td",
                "<th",
                "<ul",
                "<ol",
                "<header",
                "<footer",
                "<nav",
                "<head",
                "<style",
                "<script",
                "<meta",
                "<title",
                "",
            ),
        ),
        Language(
            "java",
            "Java",
            (".java",),
            _c_like(
                "\nclass ",
                "\npublic ",
                "\nprotected ",
                "\nprivate ",
                "\nstatic ",
                "\nif ",
                "\nfor ",
                "\nwhile ",
                "\nswitch ",
                "\ncase ",
            ),
        ),
        Language(
            "js",
            "JavaScript",
            (".js", ".mjs", ".cjs", ".jsx"),
            _c_like(
                "\nfunction ",
                "\nconst ",
                "\nlet ",
                "\nvar ",
                "\nclass ",
                "\nif ",
                "\nfor ",
                "\nwhile ",
                "\nswitch ",
                "\ncase ",
                "\ndefault ",
            ),
        ),
        Language(
            "kotlin",
            "Kotlin",
            (".kt", ".kts"),
            _c_like(
                "\nclass ",
                "\npublic ",
                "\nprotected ",
                "\nprivate ",
                "\ninternal ",
                "\ncompanion ",
                "\nfun ",
                "\nval ",
                "\nvar ",
                "\nif ",
                "\nfor ",
                "\nwhile ",
                "\nwhen ",
                "\nelse ",
            ),
        ),
        # As regular expressions "$$" and "$" match only at the end of the text (LangChain applies
        # them so too): they cut nothing, and LaTeX goes from environments to spaces.
        Language(
            "latex",
            "LaTeX",
            (".tex",),
            (
                "\n\\\\chapter{",
                "\n\\\\section{",
                "\n\\\\subsection{",
                "\n\\\\subsubsection{",
                "\n\\\\begin{enumerate}",
                "\n\\\\begin{itemize}",
                "\n\\\\begin{description}",
                "\n\\\\begin{list}",
                "\n\\\\begin{quote}",
                "\n\\\\begin{quotation}",
                "\n\\\\begin{verse}",
                "\n\\\\begin{verbatim}",
                "\n\\\\begin{align}",
                "$$",
                "$",
                " ",
                "",
            ),
        ),
        Language("lua", "Lua", (".lua",), _c_like("\nlocal ", "\nfunction ", "\nif ", "\nfor ", "\nwhile ", "\nrepeat ")),
        Language(
            "markdown",
            "Markdown",
            (".md", ".markdown"),
            ("\n#{1,6} ", "```\n", "\n\\*\\*\\*+\n", "\n---+\n", "\n___+\n", "\n\n", "\n", " ", ""),
        ),
        Language(
            "php",
            "PHP",
            (".php",),
            _c_like("\nfunction ", "\nclass ", "\nif ", "\nforeach ", "\nwhile ", "\ndo ", "\nswitch ", "\ncase "),
        ),
        Language(
            "powershell",
            "PowerShell",
            (".ps1", ".psm1"),
            _c_like(
                "\nfunction ",
                "\nparam ",
                "\nif ",
                "\nforeach ",
                "\nfor ",
                "\nwhile ",
                "\nswitch ",
                "\nclass ",
                "\ntry ",
                "\ncatch ",
                "\nfinally ",
            ),
        ),
        Language(
            "proto",
            "Protocol Buffers",
            (".proto",),
            _c_like("\nmessage ", "\nservice ", "\nenum ", "\noption ", "\nimport ", "\nsyntax "),
        ),
        Language(
            "r",
            "R",
            (".r",),
            _c_like(
                "\nfunction ",
                "\nsetClass\\(",
                "\nsetMethod\\(",
                "\nsetGeneric\\(",
                "\nif ",
                "\nelse ",
                "\nfor ",
                "\nwhile ",
                "\nrepeat ",
                "\nlibrary\\(",
                "\nrequire\\(",
            ),
        ),
        Language("rst", "reStructuredText", (".rst",), _c_like("\n=+\n", "\n-+\n", "\n\\*+\n", "\n\n.. *\n\n")),
        Language(
            "ruby",
            "Ruby",
            (".rb",),
            _c_like("\ndef ", "\nclass ", "\nif ", "\nunless ", "\nwhile ", "\nfor ", "\ndo ", "\nbegin ", "\nrescue "),
        ),
        Language(
            "rust", "Rust", (".rs",), _c_like("\nfn ", "\nconst ", "\nlet ", "\nif ", "\nwhile ", "\nfor ", "\nloop ", "\nmatch ")
        ),
        Language(
            "scala",
            "Scala",
            (".scala", ".sc"),
            _c_like("\nclass ", "\nobject ", "\ndef ", "\nval ", "\nvar ", "\nif ", "\nfor ", "\nwhile ", "\nmatch ", "\ncase "),
        ),
        Language(
            "sol",
            "Solidity",
            (".sol",),
            _c_like(
                "\npragma ",
                "\nusing ",
                "\ncontract ",
                "\ninterface ",
                "\nlibrary ",
                "\nconstructor ",
                "\ntype ",
                "\nfunction ",
                "\nevent ",
                "\nmodifier ",
                "\nerror ",
                "\nstruct ",
                "\nenum ",
                "\nif ",
                "\nfor ",
                "\nwhile ",
                "\ndo while ",
                "\nassembly ",
            ),
        ),
        Language(
            "swift",
            "Swift",
            (".swift",),
            _c_like(
                "\nfunc ", "\nclass ", "\nstruct ", "\nenum ", "\nif ", "\nfor ", "\nwhile ", "\ndo ", "\nswitch ", "\ncase "
            ),
        ),
        Language(
            "ts",
            "TypeScript",
            (".ts", ".tsx", ".mts", ".cts"),
            _c_like(
                "\nenum ",
                "\ninterface ",
                "\nnamespace ",
                "\ntype ",
                "\nclass ",
                "\nfunction ",
                "\nconst ",
                "\nlet ",
                "\nvar ",
                "\nif ",
                "\nfor ",
                "\nwhile ",
                "\nswitch ",
                "\ncase ",
                "\ndefault ",
            ),
        ),
        Language(
            "visualbasic6",
            "Visual Basic 6",
            (".bas", ".cls", ".frm"),
            (
                "\\n(?!End\\s)(?:Public|Private|Friend|Global|Static)\\s+?Sub\\s+",
                "\\n(?!End\\s)(?:Public|Private|Friend|Global|Static)\\s+?Function\\s+",
                "\\n(?!End\\s)(?:Public|Private|Friend|Global|Static)\\s+?Property\\s+(?:Get|Let|Set)\\s+",
                "\\n(?!End\\s)(?:Public|Private|Friend|Global|Static)\\s+?Type\\s+",
                "\\n(?!End\\s)(?:Public|Private|Friend|Global|Static)\\s+?Enum\\s+",
                "\\n(?!End\\s)If\\s+",
                "\\nElseIf\\s+",
                "\\nElse\\s+",
                "\\nSelect\\s+Case\\s+",
                "\\nCase\\s+",
                "\\nFor\\s+",
                "\\nDo\\s+",
                "\\nWhile\\s+",
                "\\nWith\\s+",
                "\\n\\n",
                "\\n",
                " ",
                "",
            ),
        ),
    )
}
"""Every language by name (LangChain's ``Language`` values), Python first."""

_BY_EXTENSION = {ext: lang.name for lang in LANGUAGES.values() for ext in lang.extensions}


def language_of(setting: str, source: str | None) -> str:
    """The language to cut by: the setting, unless it is `AUTO`; then the extension of
    `source` (a file name or path), else Python.

    >>> language_of("auto", "src/app.TS"), language_of("auto", "notes"), language_of("go", "x.py")
    ('ts', 'python', 'go')
    """
    if setting != AUTO:
        return setting
    if source:
        name = source.replace("\\", "/").rsplit("/", 1)[-1]
        dot = name.rfind(".")
        if dot > 0:
            return _BY_EXTENSION.get(name[dot:].lower(), "python")
    return "python"
