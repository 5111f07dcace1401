"""LaTeX sources to the corpus's text form: one block (heading, paragraph, list item) a line.

The corpora rpsum trains on are text extracted from Markdown: headings and list items on their
own lines, a paragraph on one line, no markup, code, tables, figures or formulas. This module
reads a LaTeX document the same way, with the standard library only:

  expand(read, main)      the main file with every \\input, \\include, \\subfile and \\import
                          read in place (comments removed); read(path) -> str or None
  split_abstract(body)    (abstract text, body without the abstract)
  to_blocks(body)         the document's blocks, in order, headings included
  document_body(source)   what lies between \\begin{document} and \\end{document}

What is left out: comments, the preamble, display math, figures, tables, code, algorithms,
TikZ, footnotes, citations and references, the bibliography and everything after it, the
appendices, and front- or back-matter chapters that would give the summary away or are not
prose (abstracts in any language, summaries, acknowledgements, declarations, lists of
publications, contents). Inline math keeps its letters and digits ($x_i$ reads x_i).
"""
import posixpath
import re
import unicodedata

# Environments whose whole content is left out.
DROP_ENVS = {
    'equation', 'equation*', 'align', 'align*', 'alignat', 'alignat*', 'gather', 'gather*',
    'multline', 'multline*', 'eqnarray', 'eqnarray*', 'displaymath', 'math', 'flalign',
    'flalign*', 'figure', 'figure*', 'wrapfigure', 'subfigure', 'table', 'table*', 'tabular',
    'tabular*', 'tabularx', 'longtable', 'tabu', 'sidewaystable', 'sidewaysfigure',
    'lstlisting', 'verbatim', 'Verbatim', 'minted', 'code', 'listing', 'algorithm',
    'algorithmic', 'algorithm2e', 'tikzpicture', 'pgfpicture', 'picture', 'thebibliography',
    'comment', 'titlepage', 'filecontents', 'filecontents*', 'tcolorbox', 'scope', 'axis',
    'CJK', 'otherlanguage', 'otherlanguage*', 'dedication', 'acknowledgements',
    'acknowledgments', 'abstract', 'abstract*', 'keywords', 'declaration', 'forest',
}
# Commands whose arguments are no running text (their braces go with them).
DROP_ARG_CMDS = {
    'cite', 'citep', 'citet', 'citealp', 'citealt', 'citeauthor', 'citeyear', 'parencite',
    'textcite', 'autocite', 'footcite', 'nocite', 'ref', 'eqref', 'autoref', 'cref', 'Cref',
    'vref', 'pageref', 'nameref', 'label', 'footnote', 'footnotetext', 'footnotemark',
    'index', 'includegraphics', 'vspace', 'hspace', 'vskip', 'hskip', 'setlength',
    'addtolength', 'setcounter', 'addtocounter', 'addcontentsline', 'addbibresource',
    'bibliographystyle', 'usepackage', 'newcommand', 'renewcommand', 'providecommand',
    'newenvironment', 'renewenvironment', 'DeclareMathOperator', 'def', 'let', 'url',
    'graphicspath', 'input', 'include', 'pagestyle', 'thispagestyle', 'pagenumbering',
    'markboth', 'markright', 'color', 'definecolor', 'hypersetup', 'todo', 'marginpar',
    'thanks', 'newacronym', 'newglossaryentry', 'acrodef', 'fontsize', 'selectfont',
    'setmainfont', 'rule', 'raisebox', 'resizebox', 'scalebox', 'captionsetup', 'caption',
    'subcaption', 'bibliography', 'printbibliography', 'tableofcontents', 'listoffigures',
    'listoftables', 'maketitle', 'newpage', 'clearpage', 'cleardoublepage', 'frontmatter',
    'mainmatter', 'backmatter', 'noindent', 'centering', 'small', 'footnotesize', 'large',
    'Large', 'LARGE', 'huge', 'Huge', 'normalsize', 'tiny', 'scriptsize', 'bigskip',
    'medskip', 'smallskip', 'par', 'linebreak', 'pagebreak', 'nopagebreak', 'newline',
    'hfill', 'vfill', 'protect', 'phantomsection', 'printglossaries', 'printindex',
    'glsresetall', 'acresetall', 'lipsum', 'blindtext', 'doi', 'orcid', 'email',
    'includepdf', 'epigraph', 'setuptoc', 'counterwithin', 'numberwithin', 'Crefname',
    'crefname', 'newtheorem', 'theoremstyle', 'bibitem', 'hyperref', 'appendix',
    'subsectionmark', 'sectionmark', 'chaptermark', 'minitoc', 'etocsetnexttocdepth',
    'localtableofcontents', 'pdfbookmark', 'hypertarget', 'multicolumn', 'multirow', 'cline', 'hline', 'toprule',
    'midrule', 'bottomrule', 'tikz', 'sisetup', 'lstinputlisting', 'inputminted',
}
# Commands that stand for a word.
WORD_CMDS = {'LaTeX': 'LaTeX', 'TeX': 'TeX', 'ie': 'i.e.', 'eg': 'e.g.', 'etal': 'et al.',
             'etc': 'etc.', 'vs': 'vs.', 'dots': '...', 'ldots': '...', 'textellipsis': '...',
             'S': '§', 'P': '¶', 'copyright': '©', 'textregistered': '®', 'texttrademark': '™',
             'textasciitilde': '~', 'textbackslash': '\\', 'textbar': '|', 'textless': '<',
             'textgreater': '>', 'textendash': '–', 'textemdash': '—', 'ss': 'ß', 'ae': 'æ',
             'o': 'ø', 'O': 'Ø', 'aa': 'å', 'AA': 'Å', 'l': 'ł', 'L': 'Ł', 'i': 'ı',
             # siunitx's units, so that \SI{10}{\kilo\ohm} reads 10 kΩ
             'micro': 'µ', 'milli': 'm', 'kilo': 'k', 'mega': 'M', 'giga': 'G', 'nano': 'n',
             'volt': 'V', 'ohm': 'Ω', 'kelvin': 'K', 'hertz': 'Hz', 'second': 's', 'metre': 'm',
             'meter': 'm', 'ampere': 'A', 'watt': 'W', 'percent': '%', 'degreeCelsius': '°C',
             'celsius': '°C', 'kg': 'kg', 'gram': 'g', 'joule': 'J', 'tesla': 'T'}
ACCENTS = {"'": '\u0301', '`': '\u0300', '^': '\u0302', '"': '\u0308', '~': '\u0303',
           'c': '\u0327', 'v': '\u030c', 'u': '\u0306', '=': '\u0304', '.': '\u0307',
           'H': '\u030b', 'k': '\u0328', 'r': '\u030a'}
HEADINGS = {'part': 0, 'chapter': 1, 'section': 2, 'subsection': 3, 'subsubsection': 4,
            'paragraph': 5, 'addchap': 1, 'addsec': 2}
# Chapter or section titles whose content is left out: it gives the summary away (an abstract
# or summary, in any of the languages theses repeat it in) or is not the document's prose.
NOT_BODY = re.compile(
    r'^\W*(abstract|abstrakt|samenvatting|zusammenfassung|'
    r'kurzfassung|r[ée]sum[ée]|resumen|resumo|riassunto|sammanfattning|sammendrag|'
    r'tiivistelm[äa]|streszczenie|acknowledge?ments?|dankwoord|danksagung|remerciements|'
    r'agradecimientos|ringraziamenti|declaration.*|eidesstattliche.*|affidavit|'
    r'(list of )?publications?.*|contents|table of contents|list of (figures|tables|'
    r'abbreviations|symbols|acronyms)|nomenclature|glossary|abbreviations|acronyms|notation|'
    r'curriculum vitae|about the author|colophon|dedication|preface|foreword|bibliography|'
    r'change ?log|revision history|version history|'
    r'references|index)\W*$', re.I)
# A chapter titled so is the abstract's twin (a thesis's closing summary); a section so titled
# sums up its chapter and stays.
NOT_BODY_CHAPTER = re.compile(r'^\W*(summary|executive summary|conclusions? and summary)\W*$',
                              re.I)
END_OF_BODY = re.compile(
    r'\\(appendix|bibliography|printbibliography|begin\{thebibliography\}|backmatter|'
    r'begin\{appendices\})(?![a-zA-Z])')
# A file of one of these names holds an abstract (in some language) even when nothing in it
# says so: expand() marks it as an abstract environment.
ABSTRACT_FILE = re.compile(r'abstra[ck]t|zusammenfassung|kurzfassung|samenvatting|r[ée]sum[ée]|'
                           r'sammanfattning|tiivistelm', re.I)
INCLUDE = re.compile(r'\\(input|include|subfile|import|subimport|inputfrom|includefrom|'
                     r'subinputfrom|subincludefrom)\*?\s*\{([^{}]*)\}(?:\s*\{([^{}]*)\})?')


def strip_comments(text):
    """Removes each % comment (an unescaped % to the end of its line)."""
    out = []
    for line in text.split('\n'):
        m = re.search(r'(?<!\\)((?:\\\\)*)%', line)
        if m:
            line = line[:m.start()] + m.group(1)
        out.append(line)
    return '\n'.join(out)


def expand(read, main, depth=0, seen=None):
    """The text of `main` with every file it includes read in place, comments removed.

    read(path) returns a file's text or None; paths are relative to the repository root, an
    included name relative to the main file's folder (\\import's to its own), with `.tex`
    added when the name has none. A file included twice, or past a depth of 8, reads empty;
    an included file named as an abstract (ABSTRACT_FILE) reads as an abstract environment."""
    seen = set() if seen is None else seen
    text = read(main)
    if text is None or main in seen or depth > 8:
        return ''
    seen.add(main)
    text = strip_comments(text)
    if depth and '\\documentclass' in text:  # a standalone file (a figure): its body only
        text = document_body(text)
    base = posixpath.dirname(main)

    def resolve(m):
        kind, first, second = m.group(1), m.group(2).strip(), m.group(3)
        if kind in ('import', 'subimport', 'inputfrom', 'includefrom', 'subinputfrom',
                    'subincludefrom') and second is not None:
            name = posixpath.join(first, second.strip())
        else:
            name = first
        tail = '' if second is None or kind in ('import', 'subimport', 'inputfrom',
                                                   'includefrom', 'subinputfrom',
                                                   'subincludefrom') else '{' + second + '}'
        path = posixpath.normpath(posixpath.join(base, name))
        for candidate in (path + '.tex', path) if not path.endswith('.tex') else (path,):
            if read(candidate) is not None:
                inner = expand(read, candidate, depth + 1, seen)
                if ABSTRACT_FILE.search(posixpath.basename(candidate)) and \
                        '\\begin{abstract}' not in inner:
                    inner = '\\begin{abstract}' + inner + '\\end{abstract}'
                return '\n' + inner + '\n' + tail
        return tail

    return INCLUDE.sub(resolve, text)


def document_body(source):
    """What lies between the first \\begin{document} and the last \\end{document} (all of it
    if unmarked)."""
    start = source.find('\\begin{document}')
    body = source[start + len('\\begin{document}'):] if start >= 0 else source
    end = body.rfind('\\end{document}')
    return body[:end] if end >= 0 else body


def braced(text, i):
    """(content, index after) of the {...} group opening at text[i], or (None, i)."""
    if i >= len(text) or text[i] != '{':
        return None, i
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c == '\\':
            continue
        if c == '{' and (j == 0 or text[j - 1] != '\\'):
            depth += 1
        elif c == '}' and text[j - 1] != '\\':
            depth -= 1
            if depth == 0:
                return text[i + 1:j], j + 1
    return text[i + 1:], len(text)


def skip_space_and_options(text, i):
    """The index after spaces, a star and [...] options following a command name."""
    while True:
        while i < len(text) and text[i] in ' \t':
            i += 1
        if i < len(text) and text[i] == '*':
            i += 1
            continue
        if i < len(text) and text[i] == '[':
            depth = 0
            for j in range(i, len(text)):
                if text[j] == '[':
                    depth += 1
                elif text[j] == ']':
                    depth -= 1
                    if depth == 0:
                        i = j + 1
                        break
            else:
                return len(text)
            continue
        return i


def environment_end(text, name, i):
    """The index after the \\end{name} that closes the environment whose body starts at i."""
    begin, end = '\\begin{' + name + '}', '\\end{' + name + '}'
    depth = 1
    while depth:
        nb, ne = text.find(begin, i), text.find(end, i)
        if ne < 0:
            return len(text)
        if 0 <= nb < ne:
            depth, i = depth + 1, nb + len(begin)
        else:
            depth, i = depth - 1, ne + len(end)
    return i


def split_abstract(body):
    """(abstract, body without it). The abstract is, in this order of preference, the most
    English of the abstract environments, of the \\abstract{...} arguments, or of the
    chapters or sections titled Abstract, or starred and titled Summary (up to the next
    heading); ('', body) if there is none. Every one of them leaves the body."""
    envs, macros, headed = [], [], []
    for m in re.finditer(r'\\begin\{(abstract\*?)\}', body):
        end = environment_end(body, m.group(1), m.end())
        inner = body[m.end():end - len('\\end{' + m.group(1) + '}')]
        envs.append((m.start(), end, inner))
    for m in re.finditer(r'\\abstract\s*\{', body):
        inner, end = braced(body, m.end() - 1)
        if inner:
            macros.append((m.start(), end, inner))
    for m in re.finditer(r'\\(?:chapter|section|addchap|addsec)(\*?)\s*(?:\[[^\]]*\])?\s*'
                         r'\{\s*(Abstract|Summary|Executive Summary)\s*\}', body, re.I):
        if m.group(2).lower() != 'abstract' and not m.group(1):
            continue  # an unstarred Summary section sums up its chapter
        nxt = re.search(r'\\(part|chapter|section|addchap|addsec|appendix|bibliography|'
                        r'printbibliography|mainmatter|backmatter)\b', body[m.end():])
        end = m.end() + (nxt.start() if nxt else len(body) - m.end())
        headed.append((m.start(), end, body[m.end():end]))
    found = envs + macros + headed
    if not found:
        return '', body
    best = max(envs or macros or headed, key=lambda f: english_share(to_text(f[2])))
    kept, last = [], 0
    for start, end, _ in sorted(found):
        if start >= last:
            kept.append(body[last:start])
            last = end
    kept.append(body[last:])
    abstract = re.sub(r'\x01\d [^\n]*', ' ', to_text(best[2]))
    abstract = re.sub(r'^\W*(abstract\W*)+', '', abstract, flags=re.I)
    return abstract, ''.join(kept)


STOPWORDS = set('the of and to in a is that for it as with be on are this by we an which '
                'from or can not at have our these its their has was were been also'.split())


def english_share(text):
    words = re.findall(r"[a-zA-Z]+", text.lower())
    return sum(w in STOPWORDS for w in words) / max(1, len(words))


def inline_math(m):
    s = re.sub(r'\\(mathrm|mathbf|mathit|text|textrm|mathcal|mathbb|operatorname)\s*', '',
               m.group(1))
    s = re.sub(r'\\([a-zA-Z]+)', r'\1', s)
    s = re.sub(r'[{}\s]', '', s)
    return s if len(s) <= 24 else ''


def to_text(tex):
    """Running text of a LaTeX fragment: markup gone, blocks on their own lines.

    A heading becomes a line of its own prefixed by '\\x01LEVEL ' (to_blocks reads it), an
    \\item a line prefixed by '\\x02'; paragraphs are separated by blank lines."""
    out = []
    i, n = 0, len(tex)
    while i < n:
        c = tex[i]
        if c == '\\':
            m = re.match(r'\\([a-zA-Z@]+)', tex[i:])
            if not m:
                nxt = tex[i + 1:i + 2]
                if nxt in ACCENTS and i + 2 < n:
                    j = i + 2
                    arg, k = braced(tex, j) if tex[j] == '{' else (tex[j], j + 1)
                    out.append((arg or '') + ACCENTS[nxt])
                    i = k
                elif nxt == '\\':
                    out.append(' ')
                    i += 2
                    i = skip_space_and_options(tex, i)
                elif nxt in '[':  # display math \[ ... \]
                    end = tex.find('\\]', i + 2)
                    i = n if end < 0 else end + 2
                elif nxt == '(':
                    end = tex.find('\\)', i + 2)
                    inner = tex[i + 2:end] if end >= 0 else ''
                    out.append(inline_math(re.match(r'(.*)', inner, re.S)))
                    i = n if end < 0 else end + 2
                else:  # \%, \&, \_, \#, \$, \{, \}, \,, \ , ...
                    out.append({',': ' ', ' ': ' ', ';': ' ', '!': '', '/': '', '-': '',
                                '@': ''}.get(nxt, nxt))
                    i += 2
                continue
            name = m.group(1)
            j = i + len(m.group(0))
            if name == 'begin':
                env, k = braced(tex, j)
                env = (env or '').strip()
                if env in DROP_ENVS:
                    i = environment_end(tex, env, k)
                    out.append('\n\n')
                else:
                    i = skip_space_and_options(tex, k)
                    # Arguments of list and minipage environments are no text.
                    while env in ('minipage', 'tabular', 'multicols', 'wrapfigure') and \
                            i < n and tex[i] == '{':
                        _, i = braced(tex, i)
                    if env in ('itemize', 'enumerate', 'description', 'quote', 'quotation',
                               'center', 'flushleft', 'flushright'):
                        out.append('\n\n')
                continue
            if name == 'end':
                env, i = braced(tex, j)
                if (env or '').strip() in ('itemize', 'enumerate', 'description', 'quote',
                                           'quotation', 'center', 'flushleft', 'flushright'):
                    out.append('\n\n')
                continue
            base = name
            star_j = skip_space_and_options(tex, j)
            if base in HEADINGS:
                title, k = braced(tex, star_j)
                out.append('\n\n\x01%d %s\n\n' % (HEADINGS[base], flat(to_text(title or ''))))
                i = k
                continue
            if base == 'item':
                label = ''
                if j < n and tex[j] == '[':
                    end = tex.find(']', j)
                    label = tex[j + 1:end] if end > 0 else ''
                    j = end + 1 if end > 0 else n
                label = flat(to_text(label))
                if label and label[-1].isalnum():
                    label += ':'
                out.append('\n\x02' + (label + ' ' if label else ''))
                i = j
                continue
            if base in WORD_CMDS:
                out.append(WORD_CMDS[base])
                i = j
                if i < n and tex[i] == '{' and tex[i + 1:i + 2] == '}':
                    i += 2
                continue
            if base in DROP_ARG_CMDS or base.startswith('cite') or \
                    (base.endswith('ref') and base != 'href'):
                k = skip_space_and_options(tex, j)
                while k < n and tex[k] == '{':
                    _, k = braced(tex, k)
                    if base not in ('newcommand', 'renewcommand', 'providecommand',
                                    'newenvironment', 'renewenvironment', 'href', 'setlength',
                                    'addtolength', 'setcounter', 'addtocounter',
                                    'definecolor', 'addcontentsline', 'newacronym',
                                    'newglossaryentry', 'acrodef', 'multicolumn',
                                    'multirow', 'resizebox', 'scalebox', 'raisebox',
                                    'fontsize', 'newtheorem', 'crefname', 'Crefname'):
                        break
                    k = skip_space_and_options(tex, k)
                i = k
                if base in ('def',):
                    i = tex.find('\n', j)
                    i = n if i < 0 else i
                continue
            if base == 'href':
                _, k = braced(tex, star_j)
                text, i = braced(tex, skip_space_and_options(tex, k))
                out.append(to_text(text or ''))
                continue
            # Any other command: its braced arguments are read as text (\emph{x} reads x,
            # \gls{key} reads key), its options left out.
            k = star_j
            while k < n and tex[k] == '{':
                arg, k = braced(tex, k)
                out.append(to_text(arg or ''))
            if k == star_j and j < n and tex[j] == ' ':
                k = j  # keep the space after a bare command name
            i = k
            continue
        if c == '$':
            if tex.startswith('$$', i):
                end = tex.find('$$', i + 2)
                i = n if end < 0 else end + 2
                out.append(' ')
                continue
            end = i + 1
            while end < n and (tex[end] != '$' or tex[end - 1] == '\\'):
                end += 1
            out.append(inline_math(re.match(r'(.*)', tex[i + 1:end], re.S)))
            i = end + 1
            continue
        if c in '{}':
            i += 1
            continue
        if c == '~':
            out.append(' ')
            i += 1
            continue
        out.append(c)
        i += 1
    text = ''.join(out)
    text = text.replace('---', '—').replace('--', '–').replace('``', '"').replace("''", '"')
    return text


def flat(text):
    """One line: whitespace runs made one space, no space before closing punctuation (where
    a citation or reference was), accents composed (NFC)."""
    text = re.sub(r'\s+', ' ', text.replace('\x01', '').replace('\x02', '')).strip()
    text = re.sub(r' +([.,;:!?)\]])', r'\1', text)
    return unicodedata.normalize('NFC', text)


def prose_line(line, kind):
    """Half its characters letters, and a paragraph of four words or more (a lone word is
    what is left of a label, a reference or a command of the author's)."""
    letters = sum(ch.isalpha() for ch in line)
    return letters >= 0.5 * len(line.replace(' ', '')) and \
        len(line.split()) >= (4 if kind == 'para' else 1)


def to_blocks(body):
    """The body's blocks in order: (kind, level, text), kind 'heading', 'item' or 'para'.

    Chapters and sections whose title NOT_BODY names are left out with everything under them,
    and so is all that follows the appendix or the bibliography, and what comes before
    \\mainmatter or, without it, before the first heading (a title page, a dedication)."""
    start = re.search(r'\\mainmatter(?![a-zA-Z])', body)
    if start:
        body = body[start.end():]
    end = END_OF_BODY.search(body)
    if end:
        body = body[:end.start()]
    text = to_text(body)
    blocks, skip_level, started = [], None, False
    for chunk in re.split(r'\n\s*\n', text):
        for part in re.split(r'\n(?=\x02)', chunk):
            part = part.strip()
            if not part:
                continue
            if part.startswith('\x01'):
                level = int(part[1])
                title = flat(part[3:])
                if skip_level is not None and level <= skip_level:
                    skip_level = None
                if skip_level is None and (NOT_BODY.match(title) or
                                           (level <= 1 and NOT_BODY_CHAPTER.match(title))):
                    skip_level = level
                if skip_level is None and title:
                    blocks.append(('heading', level, title))
                    started = True
                continue
            if skip_level is not None or not started:  # front matter: before any heading
                continue
            kind = 'item' if part.startswith('\x02') else 'para'
            line = flat(part)
            if line and prose_line(line, kind):
                blocks.append((kind, 0, line))
    return blocks
