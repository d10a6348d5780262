#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""series.py: the engine of series.sh (make series).

Reads tools/testing/kprobes/series.map (its header says the format) and
builds, in a git tree holding the base's version of every file the series
touches, the commits of the teardown series it sits on (patches/teardown/)
and then one commit per PART, in the order of the map.  Fails loudly when
the map does not account for a file exactly once, when a rule matches
nothing, when a part would be empty, or when the tree after the last
commit differs from the project's (base - upstream-files + our files +
patches/series, less the patches the map keeps for the workbench).

    series.py TREE_DIR     (TREE_DIR: a new or empty directory; writes the
                            commits there; prints the base commit)
    series.py --list       print each part and what it brings
"""
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
TOOLS = os.path.join(ROOT, 'tools', 'testing', 'kprobes')
MAP = os.path.join(TOOLS, 'series.map')
KERNEL_DIRS = ['kernel', 'include', 'arch', 'lib', 'samples', 'Documentation',
               'mm', 'init', 'drivers', 'scripts']
KCONFIG_TOP = re.compile(r'^(config|menuconfig|choice|endchoice|comment|menu|'
                         r'endmenu|if|endif|source)\b')


def die(msg):
    sys.stderr.write('[kprobes] series: error: %s\n' % msg)
    sys.exit(1)


def base_dir():
    d = os.environ.get('KP_BASE_DIR') or os.path.join(ROOT, 'build', 'base')
    return os.path.join(d, 'linux-source-6.12')


def git(*args, cwd=ROOT, **kw):
    return subprocess.run(['git'] + list(args), cwd=cwd, check=True,
                          stdout=subprocess.PIPE, text=True, **kw).stdout


def globmatch(path, pattern):
    # shell-like: '*' does not cross '/' unless the pattern ends in '/**'
    if pattern.endswith('/**'):
        return path.startswith(pattern[:-2])
    return fnmatch.fnmatchcase(path, pattern) and \
        path.count('/') == pattern.count('/')


class Part:
    def __init__(self, slug, subject, lineno):
        self.slug, self.subject, self.lineno = slug, subject, lineno
        self.files = []      # globs: our files arriving whole
        self.patches = []    # globs over patches/NNNN-*.patch
        self.removes = []    # globs over the base's upstream files
        self.lines = []      # (path, regex)
        self.entries = []    # (path, symbol)
        self.was = []        # (path, regex, text)
        self.versions = []   # (path, file under TOOLS)
        self.spans = []      # (path, regex, where, to the end?): tail and block
        self.moves = []      # (upstream path, temporary path)
        self.transient = []  # (file under TOOLS, reverse?)
        self.late = []       # the same, applied after the part's patches


def unescape(s):
    return s.replace('\\t', '\t').replace('\\n', '\n')


def parse_map():
    parts, workbench, seen = [], [], set()
    cur = None
    with open(MAP) as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip('\n')
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            where = 'series.map:%d' % n
            words = line.split()
            kw = words[0]
            if kw == 'PART':
                if len(words) < 3:
                    die('%s: PART needs a name and a subject' % where)
                if words[1] in seen:
                    die('%s: part %s twice' % (where, words[1]))
                seen.add(words[1])
                cur = Part(words[1], line.split(None, 2)[2], n)
                parts.append(cur)
                continue
            if kw == 'workbench':
                workbench.append((words[1], where))
                continue
            if cur is None:
                die('%s: a rule before the first PART' % where)
            if kw == 'remove':
                cur.removes.append((words[1], where))
            elif kw == 'lines':
                cur.lines.append((words[1], line.split(None, 2)[2], where))
            elif kw == 'entry':
                cur.entries.append((words[1], words[2], where))
            elif kw == 'was':
                rest = line.split(None, 2)[2]
                if ' => ' not in rest:
                    die('%s: was PATH REGEX => TEXT' % where)
                rx, text = rest.split(' => ', 1)
                cur.was.append((words[1], rx, unescape(text), where))
            elif kw == 'version':
                cur.versions.append((words[1], words[2], where))
            elif kw == 'tail':
                cur.spans.append((words[1], line.split(None, 2)[2], where, True))
            elif kw == 'block':
                cur.spans.append((words[1], line.split(None, 2)[2], where, False))
            elif kw == 'move':
                if len(words) != 3:
                    die('%s: move UPSTREAM-PATH TEMPORARY-PATH' % where)
                cur.moves.append((words[1], words[2], where))
            elif kw in ('patch', 'patch-after'):
                rev = len(words) == 3 and words[1] == '-R'
                if len(words) != 2 and not rev:
                    die('%s: %s [-R] FILE' % (where, kw))
                (cur.transient if kw == 'patch' else cur.late).append(
                    (words[-1], rev, where))
            elif len(words) == 1:
                if kw.startswith('patches/'):
                    cur.patches.append((kw, where))
                else:
                    cur.files.append((kw, where))
            else:
                die('%s: cannot read "%s"' % (where, line))
    if not parts:
        die('series.map has no PART')
    return parts, workbench


def kconfig_entry(lines, sym):
    """Indices of the Kconfig entry 'config SYM' (to the next top-level
    keyword), or None."""
    start = None
    for i, ln in enumerate(lines):
        if start is None:
            if re.match(r'^(menu)?config\s+%s\s*$' % re.escape(sym), ln):
                start = i
            continue
        if KCONFIG_TOP.match(ln):
            return set(range(start, i))
    return None if start is None else set(range(start, len(lines)))


def squeeze(lines, drop):
    """lines less the indices in drop; blank lines a removal leaves doubled
    or at the end of the file go too."""
    out, gap = [], False
    for i, ln in enumerate(lines):
        if i in drop:
            gap = True
            continue
        if gap and ln.strip() == '' and (not out or out[-1].strip() == ''):
            continue
        if ln.strip() != '':
            gap = False
        out.append(ln)
    if gap:
        while out and out[-1].strip() == '':
            out.pop()
    return out


class Series:
    def __init__(self):
        self.base = base_dir()
        if not os.path.isfile(os.path.join(self.base, 'Makefile')):
            die('no base in %s: run tools/testing/kprobes/deps.sh' % self.base)
        self.parts, self.workbench = parse_map()
        self.index = {p.slug: i for i, p in enumerate(self.parts)}
        out = git('ls-files', '--', *KERNEL_DIRS)
        self.ours = [f for f in out.split('\n') if f and os.path.isfile(os.path.join(ROOT, f))]
        ups = []
        with open(os.path.join(TOOLS, 'upstream-files')) as f:
            for ln in f:
                ln = ln.strip()
                if ln and not ln.startswith('#'):
                    ups.append(ln)
        self.upstream = []   # base files of upstream's implementation
        for pat in ups:
            d = os.path.join(self.base, os.path.dirname(pat))
            if not os.path.isdir(d):
                continue
            for name in sorted(os.listdir(d)):
                rel = os.path.join(os.path.dirname(pat), name)
                if os.path.isfile(os.path.join(self.base, rel)) and \
                   fnmatch.fnmatchcase(rel, pat):
                    self.upstream.append(rel)
        with open(os.path.join(ROOT, 'patches', 'series')) as f:
            self.series = [ln.strip() for ln in f
                           if ln.strip() and not ln.startswith('#')]
        # the teardown series for the plain base, which the series sits on
        with open(os.path.join(ROOT, 'patches', 'teardown', 'series')) as f:
            self.below = ['teardown/' + ln.strip() for ln in f
                          if ln.strip() and not ln.startswith('#')]
        self.assign()

    def read(self, path):
        with open(os.path.join(ROOT, path)) as f:
            return f.read().split('\n')

    def assign(self):
        used = set()
        # our files: exactly one whole-file rule each
        self.arrive = {}
        for f in self.ours:
            hits = [(i, w) for i, p in enumerate(self.parts)
                    for g, w in p.files if globmatch(f, g)]
            for _, w in hits:
                used.add(w)
            if not hits:
                die('%s is in no PART of series.map (every file must be '
                    'mapped; there is no default part)' % f)
            if len(hits) > 1:
                die('%s is matched by %s: one whole-file rule each' %
                    (f, ', '.join(w for _, w in hits)))
            self.arrive[f] = hits[0][0]
        # patches of patches/series: exactly one part, or the workbench
        self.patch_part, self.wb = {}, set()
        for p in self.series:
            path = 'patches/' + p
            hits = [(i, w) for i, part in enumerate(self.parts)
                    for g, w in part.patches if globmatch(path, g)]
            wb = [w for g, w in self.workbench if globmatch(path, g)]
            for _, w in hits:
                used.add(w)
            used.update(wb)
            if len(hits) + len(wb) != 1:
                die('%s must be matched by exactly one rule of series.map '
                    '(matched by: %s)' % (path, ', '.join([w for _, w in hits] + wb) or 'none'))
            if wb:
                self.wb.add(p)
            else:
                self.patch_part[p] = hits[0][0]
        # upstream's files: go when ours of that name arrives, or by a
        # remove rule, which must not come after the arrival
        # An upstream file may first move out of the way ("move"): ours
        # of that name can then arrive while it is still there, at its
        # temporary path, until a remove rule takes it.
        self.moved = {}      # upstream path -> (part, temporary path)
        for i, p in enumerate(self.parts):
            for u, tmp, w in p.moves:
                if u not in self.upstream:
                    die('%s: %s is not an upstream file' % (w, u))
                if u in self.moved:
                    die('%s: %s moved twice' % (w, u))
                if u in self.arrive and self.arrive[u] < i:
                    die('%s: %s moved after ours arrived' % (w, u))
                self.moved[u] = (i, tmp)
        self.remove_at = {}
        for u in self.upstream:
            hits = [(i, w) for i, p in enumerate(self.parts)
                    for g, w in p.removes if globmatch(u, g)]
            for _, w in hits:
                used.add(w)
            if len(hits) > 1:
                die('%s is removed by %s: one remove rule each' %
                    (u, ', '.join(w for _, w in hits)))
            if hits:
                i = hits[0][0]
                if u in self.moved:
                    if i <= self.moved[u][0]:
                        die('%s: removed at %s, not after its move' % (u, hits[0][1]))
                elif u in self.arrive and self.arrive[u] < i:
                    die('%s: removed at %s after ours arrived' % (u, hits[0][1]))
                self.remove_at[u] = i
            elif u in self.moved:
                die('%s is moved but removed by no "remove" rule' % u)
            elif u not in self.arrive:
                die("upstream's %s is replaced by no file of ours and "
                    'removed by no "remove" rule' % u)
        # line-level rules: after the arrival, and they must match
        self.held = {}       # path -> [(part, set of indices)]
        self.subst = {}      # path -> {index: [(part, text)]}
        self.verfiles = {}   # path -> [(part, file)]
        for i, p in enumerate(self.parts):
            for path, rx, w in p.lines:
                self.need_arrived(path, i, w)
                lines = self.read(path)
                idx = {k for k, ln in enumerate(lines) if re.search(rx, ln)}
                if not idx:
                    die('%s: "%s" matches no line of %s' % (w, rx, path))
                self.held.setdefault(path, []).append((i, idx))
            for path, rx, w, to_end in p.spans:
                self.need_arrived(path, i, w)
                text = '\n'.join(self.read(path))
                ms = list(re.finditer(rx, text, re.M))
                if len(ms) != 1:
                    die('%s: "%s" matches %d times in %s, not once' %
                        (w, rx, len(ms), path))
                first = text.count('\n', 0, ms[0].start())
                last = text.count('\n') if to_end else \
                    text.count('\n', 0, max(ms[0].end() - 1, ms[0].start()))
                idx = set(range(first, last + 1))
                self.held.setdefault(path, []).append((i, idx))
            for f, rev, w in p.transient + p.late:
                if not os.path.isfile(os.path.join(TOOLS, f)):
                    die('%s: no %s' % (w, f))
            for path, sym, w in p.entries:
                self.need_arrived(path, i, w)
                idx = kconfig_entry(self.read(path), sym)
                if not idx:
                    die('%s: no "config %s" in %s' % (w, sym, path))
                self.held.setdefault(path, []).append((i, idx))
            for path, rx, text, w in p.was:
                self.need_arrived(path, i, w)
                lines = self.read(path)
                idx = [k for k, ln in enumerate(lines) if re.search(rx, ln)]
                if len(idx) != 1:
                    die('%s: "%s" matches %d lines of %s, not one' %
                        (w, rx, len(idx), path))
                self.subst.setdefault(path, {}).setdefault(idx[0], []).append((i, text))
            for path, vf, w in p.versions:
                if path not in self.arrive:
                    die('%s: %s is not a file of ours' % (w, path))
                if self.arrive[path] <= i:
                    die('%s: a version of %s after it arrived' % (w, path))
                if not os.path.isfile(os.path.join(TOOLS, vf)):
                    die('%s: no %s' % (w, vf))
                self.verfiles.setdefault(path, []).append((i, os.path.join(TOOLS, vf)))
        for p in self.parts:
            for g, w in p.files + p.patches + p.removes:
                if w not in used:
                    die('%s: "%s" matches nothing' % (w, g))

    def need_arrived(self, path, i, where):
        if path not in self.arrive:
            die('%s: %s is not a file of ours' % (where, path))
        if self.arrive[path] >= i:
            die('%s: a rule on %s in or before the part that brings it' %
                (where, path))

    def content(self, path, k):
        """Our file PATH after part k: None when absent (or the base's)."""
        a = self.arrive[path]
        if k < a:
            vs = [(i, f) for i, f in self.verfiles.get(path, []) if i <= k]
            if vs:
                with open(vs[-1][1]) as f:
                    return f.read()
            return None
        lines = self.read(path)
        nl = lines[-1] == ''
        if nl:
            lines = lines[:-1]
        drop = set()
        for i, idx in self.held.get(path, []):
            if i > k:
                drop |= idx
        lines = list(lines)
        for li, alts in self.subst.get(path, {}).items():
            later = sorted(t for t in alts if t[0] > k)
            if later:
                lines[li] = later[0][1]
        return '\n'.join(squeeze(lines, drop)) + ('\n' if nl else '')

    def touched(self):
        """Every path the series (or the one below it) writes, removes or patches."""
        t = set(self.ours) | set(self.upstream)
        for p in self.below + self.series:
            with open(os.path.join(ROOT, 'patches', p)) as f:
                for ln in f:
                    m = re.match(r'^\+\+\+ b/(\S+)', ln)
                    if m:
                        t.add(m.group(1))
        return sorted(t)

    def expected(self, d):
        """The project's tree (as stage.sh lays it) of the touched files."""
        for f in self.touched():
            src = os.path.join(self.base, f)
            if f in self.ours:
                src = os.path.join(ROOT, f)
            elif f in self.upstream or not os.path.isfile(src):
                continue
            os.makedirs(os.path.dirname(os.path.join(d, f)), exist_ok=True)
            shutil.copyfile(src, os.path.join(d, f))
        for p in self.below:
            apply_patch(d, p)
        for p in self.series:
            if p in self.wb:
                continue
            apply_patch(d, p)


def apply_patch(d, p, where=None, reverse=False):
    where = where or os.path.join(ROOT, 'patches')
    with open(os.path.join(where, p)) as f:
        r = subprocess.run(['patch', '-p1', '-s', '--no-backup-if-mismatch',
                            ] + (['-R'] if reverse else []),
                           cwd=d, stdin=f, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        die('%s does not apply in its part (context from a later '
            'part?):\n%s' % (os.path.relpath(os.path.join(where, p), ROOT),
                              r.stdout))


def write(d, path, text):
    full = os.path.join(d, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, 'w') as f:
        f.write(text)


def build(tree):
    s = Series()
    env = dict(os.environ)
    name = env.get('KP_SERIES_NAME') or 'kprobes'
    email = env.get('KP_SERIES_EMAIL') or 'kprobes@localhost'
    os.makedirs(tree, exist_ok=True)
    git('init', '-q', cwd=tree)
    git('config', 'user.name', name, cwd=tree)
    git('config', 'user.email', email, cwd=tree)
    for f in s.touched():
        src = os.path.join(s.base, f)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(tree, f)), exist_ok=True)
            shutil.copyfile(src, os.path.join(tree, f))
    git('add', '-A', cwd=tree)
    ver = subprocess.run(['make', '-s', '-C', s.base, 'kernelversion'],
                         stdout=subprocess.PIPE, text=True).stdout.strip()
    git('commit', '-qm', 'Linux %s (Debian linux-source-6.12)' % ver, cwd=tree)
    git('tag', 'base', cwd=tree)
    # The series sits on the teardown series (patches/teardown/, exported
    # on its own by series.sh): its commits first, as they are.
    git('am', '-q', *[os.path.join(ROOT, 'patches', p) for p in s.below],
        cwd=tree)
    basecommit = git('rev-parse', 'HEAD', cwd=tree).strip()
    for k, part in enumerate(s.parts):
        for u in s.upstream:
            if s.moved.get(u, (None,))[0] == k:
                tmp = os.path.join(tree, s.moved[u][1])
                os.makedirs(os.path.dirname(tmp), exist_ok=True)
                os.rename(os.path.join(tree, u), tmp)
        for u in s.upstream:
            if s.remove_at.get(u) == k:
                fp = os.path.join(tree, s.moved[u][1] if u in s.moved else u)
                if os.path.exists(fp):
                    os.remove(fp)
        for f, rev, _ in part.transient:
            apply_patch(tree, f, TOOLS, rev)
        for f in s.ours:
            c = s.content(f, k)
            if c is not None:
                write(tree, f, c)
        for p in s.series:
            if s.patch_part.get(p) == k:
                apply_patch(tree, p)
        for f, rev, _ in part.late:
            apply_patch(tree, f, TOOLS, rev)
        git('add', '-A', cwd=tree)
        if not git('status', '--porcelain', cwd=tree).strip():
            die('part %s (series.map:%d) changes nothing' % (part.slug, part.lineno))
        msgf = os.path.join(TOOLS, 'series-msgs', part.slug + '.txt')
        if not os.path.isfile(msgf):
            die('no message for part %s: write series-msgs/%s.txt' % (part.slug, part.slug))
        with open(msgf) as f:
            body = f.read().strip('\n')
        # a placeholder line (@@STEP@@: what the part's kernel measured in
        # make bench-steps) is filled from the stored results
        if re.search(r'^@@[A-Z]+@@$', body, re.M):
            body = subprocess.run(
                [sys.executable, os.path.join(TOOLS, 'bench-report.py'), 'cover',
                 '--part', part.slug, '--fill', msgf],
                stdout=subprocess.PIPE, text=True, check=True).stdout.strip('\n')
            if '@@' in body:
                die('a placeholder is left in the message of part %s' % part.slug)
        msg = '%s\n\n%s\n\nSigned-off-by: %s <%s>\n' % (part.subject, body, name, email)
        git('commit', '-q', '-F', '-', cwd=tree, input=msg)
    # The last commit must be the project.
    with tempfile.TemporaryDirectory() as exp:
        s.expected(exp)
        diff = subprocess.run(['diff', '-r', '-q', '-x', '.git', exp, tree],
                              stdout=subprocess.PIPE, text=True).stdout
        base_only = diff.splitlines()
        if base_only:
            die('the tree after the last patch is not the project:\n  ' +
                '\n  '.join(base_only))
    print(basecommit)


def listing():
    s = Series()
    for k, part in enumerate(s.parts):
        print('%02d %-10s %s' % (k + 1, part.slug, part.subject))
        for f in sorted(x for x in s.ours if s.arrive[x] == k):
            print('     + %s' % f)
        for u in sorted(x for x in s.upstream if s.remove_at.get(x) == k):
            print('     - %s (upstream)' % u)
        for p in s.series:
            if s.patch_part.get(p) == k:
                print('     p patches/%s' % p)
        for path, rx, _ in part.lines:
            print('     ~ %s: lines /%s/' % (path, rx))
        for path, sym, _ in part.entries:
            print('     ~ %s: config %s' % (path, sym))
        for path, rx, text, _ in part.was:
            print('     ~ %s: /%s/ (was "%s")' % (path, rx, text.strip()))
        for path, vf, _ in part.versions:
            print('     v %s (from %s)' % (path, vf))
        for path, rx, _, to_end in part.spans:
            print('     ~ %s: %s /%s/%s' % (path, 'from' if to_end else 'block',
                                          rx, ' to the end' if to_end else ''))
        for u, tmp, _ in part.moves:
            print('     > %s (upstream) moves to %s' % (u, tmp))
        for f, rev, _ in part.transient:
            print('     p %s%s (transient)' % ('-R ' if rev else '', f))
        for f, rev, _ in part.late:
            print('     p %s%s (transient, after the part\'s patches)' %
                  ('-R ' if rev else '', f))
    for p in sorted(s.wb):
        print('   workbench only: patches/%s' % p)


if __name__ == '__main__':
    if len(sys.argv) == 2 and sys.argv[1] == '--list':
        listing()
    elif len(sys.argv) == 2:
        build(os.path.abspath(sys.argv[1]))
    else:
        die('usage: series.py TREE_DIR | --list')
