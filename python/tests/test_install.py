"""Installs the build into a temporary root (meson install --destdir) and
imports the installed package from there, in fresh interpreters: it must
carry its metadata, a _location.py naming the installed library relative to
itself (so the staged copy finds its own library with nothing set), and
find the library through GEMMLADDER_LIBRARY, and, when the package is moved
away from it, through the system loader (LD_LIBRARY_PATH).

    test_install.py MESON BUILD_DIR      (meson runs it: suite host)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import support

PROBE = ('import gemmladder, json\n'
         'print(json.dumps([gemmladder.__file__, gemmladder.__version__,\n'
         '                  gemmladder.library_version(), gemmladder.library_path()]))\n')


class InstalledPackage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        meson, build = sys.argv[1], sys.argv[2]
        cls.root = tempfile.mkdtemp(prefix='gemmladder-install-')
        subprocess.run([meson, 'install', '-C', build, '--no-rebuild', '--quiet', '--destdir', cls.root],
                       check=True, stdout=subprocess.DEVNULL)
        found = {}
        for directory, _, names in os.walk(cls.root):
            for name in names:
                found.setdefault(name, []).append(os.path.join(directory, name))
        packages = [p for p in found.get('__init__.py', []) if os.path.basename(os.path.dirname(p)) == 'gemmladder']
        assert len(packages) == 1, 'expected one installed gemmladder package, found %s' % packages
        cls.package = os.path.dirname(packages[0])
        soname = 'libgemmladder.so.%d' % support.header_defines()['GL_ABI_VERSION']
        assert found.get(soname), 'no %s was installed' % soname
        cls.library = found[soname][0]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root, ignore_errors=True)

    def probe(self, package=None, **env):
        environment = dict(os.environ, PYTHONPATH=os.path.dirname(package or self.package))
        environment.pop('LD_LIBRARY_PATH', None)  # meson's, naming the build tree
        environment.update(env)
        done = subprocess.run([sys.executable, '-c', PROBE], env=environment, capture_output=True,
                              text=True, cwd=self.root)
        self.assertEqual(done.returncode, 0, done.stderr)
        return json.loads(done.stdout)

    def location(self):
        scope = {}
        with open(os.path.join(self.package, '_location.py')) as f:
            exec(f.read(), scope)
        return scope

    def test_files(self):
        for name in ('__init__.py', '_api.py', '_arguments.py', '_cudart.py', '_dlpack.py', '_library.py',
                     '_matrix.py', '_location.py', '_variants.py', 'py.typed'):
            self.assertTrue(os.path.isfile(os.path.join(self.package, name)), name)

    def test_metadata(self):
        code = 'import importlib.metadata as m; print(m.version("gemmladder"))'
        environment = dict(os.environ, PYTHONPATH=os.path.dirname(self.package))
        done = subprocess.run([sys.executable, '-c', code], env=environment, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), support.header_version())

    def test_location_names_the_installed_library(self):
        scope = self.location()
        self.assertEqual(scope['LIBRARY_ORIGIN'], 'installed')
        self.assertEqual(scope['VERSION'], support.header_version())
        self.assertFalse(os.path.isabs(scope['LIBRARY']), scope['LIBRARY'])
        self.assertEqual(os.path.realpath(os.path.join(self.package, scope['LIBRARY'])),
                         os.path.realpath(self.library))

    def test_import_finds_its_library(self):
        path, version, library_version, library = self.probe(GEMMLADDER_LIBRARY='')
        self.assertTrue(path.startswith(self.package), path)
        self.assertEqual(version, support.header_version())
        self.assertEqual(library_version, support.header_version())
        self.assertEqual(os.path.realpath(library), os.path.realpath(self.library))

    def test_import_with_environment_variable(self):
        moved = tempfile.mkdtemp(prefix='gemmladder-library-')
        try:
            copy = shutil.copy(self.library, moved)
            _, _, _, library = self.probe(GEMMLADDER_LIBRARY=copy)
            self.assertEqual(os.path.realpath(library), os.path.realpath(copy))
        finally:
            shutil.rmtree(moved)

    def test_import_through_system_loader(self):
        moved = tempfile.mkdtemp(prefix='gemmladder-package-')
        try:  # the package alone, away from the library its _location.py names
            package = shutil.copytree(self.package, os.path.join(moved, 'gemmladder'))
            _, _, _, library = self.probe(package, GEMMLADDER_LIBRARY='',
                                          LD_LIBRARY_PATH=os.path.dirname(self.library))
            self.assertEqual(os.path.realpath(library), os.path.realpath(self.library))
        finally:
            shutil.rmtree(moved)


if __name__ == '__main__':
    support.run()
