#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""series-same.py OLDREV [ARCH...]: carry per-step results across series.
   series-same.py --carry RUN OLDREV ARCH: the same for one stored run.

For each ARCH (default: x86_64 arm64 riscv64 and archcheck's others),
prints which steps of the series at the working tree are, in the tree
that ARCH's compiler sees, the tree of a step of the series at project
revision OLDREV: everything but Documentation/, MAINTAINERS and the
other architectures' arch/ directories (what series-check's SAME lines
compare).  A stored series-check run of OLDREV's series that built (and
booted) step M then holds for each step N printed as "N = M": the same
sources give the same kernel.

Both series are made by their own series.py (OLDREV's from a temporary
git worktree) in temporary directories; each holds only the files its
series touches, at the base's version first, so a file that only one of
them touches is compared at the base's version in the other.

Output, one line per arch:
    SAME ARCH: 01=01 02=02 ... 29=new ...
"new": no step of OLDREV's series has that tree.

--carry RUN (a stored series-check run of OLDREV's series, under
results/series/): prints, as a run file of its own, the steps of the
working tree's series that RUN's steps stand for on ARCH: a
"SERIES build.N.ARCH SAME (...)" line (and boot, if RUN booted) naming
RUN's step M for each step N whose tree is step M's and where RUN
passed step M (or had it SAME); the new steps are left out, for a run
of their own.
"""
import hashlib
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
# The architectures series-check builds (lib.sh's kp_sc_arch knows each).
ARCHES = ['x86_64', 'i386', 'arm64', 'riscv64', 'ppc64le', 's390x', 'arm',
          'mips', 'arc', 'parisc', 'sh4', 'sparc64']


def arch_dir(arch, cache={}):
    """The arch/ directory ARCH compiles: lib.sh's kp_sc_arch kernel ARCH,
    i386's being x86 (series-check's sc_tree_key).  None if unknown."""
    if arch not in cache:
        r = subprocess.run(['bash', '-c', '. "$0"; kp_sc_arch "$1"',
                            os.path.join(HERE, 'lib.sh'), arch],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
        k = r.stdout.split()[0] if r.returncode == 0 and r.stdout.split() else None
        cache[arch] = 'x86' if k == 'i386' else k
    return cache[arch]


def git(cwd, *args):
    return subprocess.run(['git'] + list(args), cwd=cwd, check=True,
                          stdout=subprocess.PIPE, text=True).stdout


def base_dir():
    d = os.environ.get('KP_BASE_DIR') or os.path.join(ROOT, 'build', 'base')
    return os.path.join(d, 'linux-source-6.12')


def make_series(tools, out):
    """Run TOOLS/series.py into OUT; return (repo, step commits)."""
    subprocess.run([sys.executable, os.path.join(tools, 'series.py'), out],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(tools, 'series.map')) as f:
        nparts = sum(1 for ln in f if ln.startswith('PART '))
    commits = git(out, 'rev-list', '--reverse', 'base..HEAD').split()
    return commits[-nparts:]


def tree(repo, rev):
    """{path: blob} of REV."""
    t = {}
    for ln in git(repo, 'ls-tree', '-r', rev).splitlines():
        meta, path = ln.split('\t', 1)
        t[path] = meta.split()[2]
    return t


def base_blob(path, cache={}):
    if path not in cache:
        full = os.path.join(base_dir(), path)
        cache[path] = (git(ROOT, 'hash-object', full).strip()
                       if os.path.isfile(full) else None)
    return cache[path]


def key(t, touched, union, adir):
    keep = re.compile(r'^(?!Documentation/|MAINTAINERS$|arch/(?!%s/)[^/]+/)'
                      % re.escape(adir))
    ent = dict(t)
    for p in union - touched:       # untouched here: the base's version
        b = base_blob(p)
        if b:
            ent[p] = b
    h = hashlib.sha1()
    for p in sorted(ent):
        if keep.match(p):
            h.update(('%s %s\n' % (p, ent[p])).encode())
    return h.hexdigest()


def carry(run, old, arch, mapping, nsteps, head):
    name = os.path.basename(run)[:-4]
    res = {}
    for ln in open(run, errors='replace'):
        m = re.match(r'^SERIES (build|boot)\.(\d+)\.(\S+) (PASS|SAME)', ln)
        if m and m.group(3) == arch:
            res[(m.group(1), int(m.group(2)))] = m.group(4)
    print("# series-same.py --carry %s %s %s at %s's series (%d patches): "
          "the steps whose %s tree (all but Documentation/, MAINTAINERS and "
          "the other arches' arch/) is the tree of a step that run %s passed "
          "(%s's series); the other steps are not here"
          % (name, old, arch, head, nsteps, arch, name, old))
    for n, m in mapping:
        if m is None:
            continue
        for kind in ('build', 'boot'):
            r = res.get((kind, m))
            if r:
                print('SERIES %s.%02d.%s SAME (the tree of step %02d of run %s, '
                      '%s there)' % (kind, n, arch, m, name, r))


def main(argv):
    if not argv:
        sys.exit(__doc__)
    run = None
    if argv[0] == '--carry':
        if len(argv) != 4:
            sys.exit(__doc__)
        run, argv = argv[1], argv[2:]
    old, arches = argv[0], argv[1:] or ARCHES
    with tempfile.TemporaryDirectory() as tmp:
        wt = os.path.join(tmp, 'old')
        git(ROOT, 'worktree', 'add', '-q', '--detach', wt, old)
        try:
            o_steps = make_series(os.path.join(wt, 'tools', 'testing', 'kprobes'),
                                  os.path.join(tmp, 'o'))
        finally:
            git(ROOT, 'worktree', 'remove', '--force', wt)
        n_steps = make_series(HERE, os.path.join(tmp, 'n'))
        o_repo, n_repo = os.path.join(tmp, 'o'), os.path.join(tmp, 'n')
        o_touched = set(tree(o_repo, 'base'))
        n_touched = set(tree(n_repo, 'base'))
        union = o_touched | n_touched
        o_trees = [tree(o_repo, c) for c in o_steps]
        n_trees = [tree(n_repo, c) for c in n_steps]
        head = git(ROOT, 'rev-parse', '--short=7', 'HEAD').strip()
        if not run:
            print('# series-same: %d steps at %s against %d at the working tree'
                  % (len(o_steps), old, len(n_steps)))
        for a in arches:
            adir = arch_dir(a)
            if not adir:
                sys.exit('series-same: unknown arch %s' % a)
            okeys = {}
            for i, t in enumerate(o_trees):
                okeys.setdefault(key(t, o_touched, union, adir), i + 1)
            mapping = [(i + 1, okeys.get(key(t, n_touched, union, adir)))
                       for i, t in enumerate(n_trees)]
            if run:
                carry(run, old, a, mapping, len(n_steps), head)
                continue
            print('SAME %s: %s' % (a, ' '.join(
                '%02d=%s' % (n, '%02d' % m if m else 'new') for n, m in mapping)))


if __name__ == '__main__':
    main(sys.argv[1:])
