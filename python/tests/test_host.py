"""Host tests of the Python binding (no GPU needed): import and library
location, versions and pinned values against the header, variant names,
argument errors raised before the GPU is touched, every public argument
with every numeric type and string (what reaches C, or the error raised),
out overlapping A or B (exact element overlap), how arrays map onto
gl_sgemm_ex (checked by emulating the call), the library-not-found message,
the no-device error, and the tuning bindings where the library has them.

Run by meson (suite host) with PYTHONPATH set to the build tree's package.
"""
import ctypes
import dataclasses
import decimal
import fractions
import inspect
import math
import os
import pathlib
import random
import re
import struct
import subprocess
import sys
import tempfile
import threading
import unittest

import support
from support import DLPackOnly, FakeArray, FakeDLPack

import gemmladder
from gemmladder import _api, _cudart, _library, _matrix

try:
    import numpy
except ImportError:
    numpy = None


def gpu_present():
    try:
        gemmladder.Handle().close()
        return True
    except gemmladder.Error:
        return False


class LoadAndVersion(unittest.TestCase):
    def test_build_tree_library_is_loaded(self):
        want = os.environ.get('GEMMLADDER_TEST_LIBRARY')
        if not want:
            self.skipTest('GEMMLADDER_TEST_LIBRARY not set (not run by meson)')
        self.assertEqual(os.path.realpath(gemmladder.library_path()), os.path.realpath(want))

    def test_version_matches_header(self):
        self.assertEqual(gemmladder.__version__, support.header_version())
        self.assertEqual(gemmladder.library_version(), support.header_version())
        self.assertEqual(gemmladder.ABI_VERSION, support.header_defines()['GL_ABI_VERSION'])

    def test_status_values_match_header(self):
        header = support.header_enum('GL_STATUS_')
        self.assertEqual({s.name: s.value for s in gemmladder.Status}, header)

    def test_variant_values_match_header_and_library(self):
        header = support.header_enum('GL_VARIANT_')
        self.assertEqual({v.name: v.value for v in gemmladder.Variant}, header)
        lib = _library.load()
        self.assertEqual(len(gemmladder.variants()), lib.gl_variant_count())
        for v in gemmladder.variants():
            self.assertEqual(gemmladder.variant_name(v), v.name.lower())

    def test_tiles_origin_values_match_header(self):
        self.assertEqual({o.name: o.value for o in gemmladder.TilesOrigin},
                         support.header_enum('GL_TILES_'))

    def test_path_values_match_header(self):
        # __members__ holds the aliases too (RUNG, EDGE_TESTS's name before 1.2)
        self.assertEqual({n: p.value for n, p in gemmladder.Path.__members__.items()},
                         support.header_enum('GL_PATH_'))

    def test_plan_struct_layout_matches_c(self):
        P = _library.PlanStruct
        for key, value in (('GEMMLADDER_TEST_PLAN_SIZE', ctypes.sizeof(P)),
                           ('GEMMLADDER_TEST_PLAN_SCRATCH_BYTES', P.scratch_bytes.offset),
                           ('GEMMLADDER_TEST_PLAN_TILES', P.tiles.offset),
                           ('GEMMLADDER_TEST_PLAN_WHY', P.why.offset),
                           ('GEMMLADDER_TEST_PLAN_RESERVED', P.reserved.offset)):
            if key not in os.environ:
                self.skipTest('%s not set (not run by meson)' % key)
            self.assertEqual(value, int(os.environ[key]), key)

    def test_variant_info_and_tile_field_layouts_match_c(self):
        for struct, key, fields in ((_library.VariantInfoStruct, 'VARIANT_INFO',
                                     ('name', 'tile_field_count', 'reserved')),
                                    (_library.TileFieldStruct, 'TILE_FIELD_INFO',
                                     ('name', 'min', 'derived', 'reserved'))):
            checks = [('GEMMLADDER_TEST_%s_SIZE' % key, ctypes.sizeof(struct))]
            checks += [('GEMMLADDER_TEST_%s_%s' % (key, f.upper()), getattr(struct, f).offset)
                       for f in fields]
            for env, value in checks:
                if env not in os.environ:
                    self.skipTest('%s not set (not run by meson)' % env)
                self.assertEqual(value, int(os.environ[env]), env)

    def test_precision_values_match_header(self):
        self.assertEqual({p.name: p.value for p in gemmladder.Precision},
                         support.header_enum('GL_PRECISION_'))

    def test_tiles_struct_layout_matches_c(self):
        for key, value in (('GEMMLADDER_TEST_TILES_SIZE', ctypes.sizeof(_library.TilesStruct)),
                           ('GEMMLADDER_TEST_TILES_ARCH', _library.TilesStruct.arch.offset),
                           ('GEMMLADDER_TEST_TILES_RESERVED', _library.TilesStruct.reserved.offset)):
            if key not in os.environ:
                self.skipTest('%s not set (not run by meson)' % key)
            self.assertEqual(value, int(os.environ[key]), key)


class Variants(unittest.TestCase):
    def test_by_name_id_and_enum(self):
        V = gemmladder.Variant
        self.assertIs(gemmladder.variant('warptile'), V.WARPTILE)
        self.assertIs(gemmladder.variant('blocktile_2d'), V.BLOCKTILE_2D)
        self.assertIs(gemmladder.variant(0), V.CUBLAS)
        self.assertIs(gemmladder.variant(V.NAIVE), V.NAIVE)
        self.assertEqual(gemmladder.variant_name(8), 'warptile')
        self.assertEqual(gemmladder.DEFAULT_VARIANT, V.AUTO)

    def test_unknown(self):
        with self.assertRaisesRegex(ValueError, "unknown variant 'fastest'.*'warptile'"):
            gemmladder.variant('fastest')
        with self.assertRaisesRegex(ValueError, 'unknown variant id 99'):
            gemmladder.variant(99)
        with self.assertRaises(ValueError):
            gemmladder.variant(-1)
        with self.assertRaises(ValueError):
            gemmladder.variant('WARPTILE')  # names are case sensitive, as in C
        for bad in (True, 1.0, None):
            with self.assertRaises(TypeError):
                gemmladder.variant(bad)


class VariantFacts(unittest.TestCase):
    """variant_info: the library's rows, as the binding reads them."""

    def setUp(self):
        if not _library.has('gl_variant_describe'):
            self.skipTest('the library predates gl_variant_describe')

    def test_rows(self):
        infos = [gemmladder.variant_info(v) for v in gemmladder.variants()]
        self.assertEqual([i.variant for i in infos], gemmladder.variants())
        self.assertEqual([i.name for i in infos], [gemmladder.variant_name(v) for v in gemmladder.variants()])
        for precision in {i.precision for i in infos}:  # one reference per precision class
            self.assertEqual(sum(i.reference for i in infos if i.precision == precision), 1, precision)
        engines = [i.variant for i in infos if i.engine]
        self.assertEqual(engines, [gemmladder.DEFAULT_VARIANT])  # the default is the engine
        for i in infos:
            self.assertIsInstance(i.precision, gemmladder.Precision)
            if i.rows_of is not None:
                self.assertTrue(gemmladder.variant_info(i.rows_of).takes_rows, i.name)
            self.assertEqual(i.takes_rows, i.rows_of == i.variant, i.name)
            for f in i.tile_fields:
                self.assertIsInstance(f, gemmladder.TileField)
                self.assertTrue(1 <= f.min <= f.max, (i.name, f))
        self.assertEqual(gemmladder.variant_info(gemmladder.variants()[0].name.lower()), infos[0])

    def test_errors(self):
        with self.assertRaises(ValueError):
            gemmladder.variant_info(len(gemmladder.variants()))
        info = _library.VariantInfoStruct()
        info.size = 8  # too small
        self.assertEqual(_library.optional('gl_variant_describe')(0, ctypes.byref(info)),
                         gemmladder.Status.INVALID_ARGUMENT)
        self.assertIn('gl_variant_info.size is 8', _library.load().gl_last_error(None).decode())

    def test_tile_fields_by_name(self):
        names = _api._tile_field_names()
        self.assertTrue(set(gemmladder.Tiles._NUMBERS[:-1]) <= set(names))
        t = gemmladder.Tiles(bm=128, bn=64, bk=16, tm=8, tn=4, threads=256)
        self.assertEqual((t.get('bm'), t.get('wniter'), t.get('threads')), (128, 0, 256))
        with self.assertRaisesRegex(ValueError, "no tile field is named 'colour'"):
            t.get('colour')
        with self.assertRaisesRegex(ValueError, "Tiles.more: 'colour'"):
            dataclasses.replace(t, more=(('colour', 3),))._to_struct()
        with self.assertRaisesRegex(ValueError, "Tiles.more: 'bm'"):
            dataclasses.replace(t, more=(('bm', 3),))._to_struct()
        s = t._to_struct()  # through the library and back
        self.assertEqual(gemmladder.Tiles._from_struct(s), t)
        value = ctypes.c_int32()
        get, set_ = _library.optional('gl_tiles_get'), _library.optional('gl_tiles_set')
        self.assertEqual(set_(ctypes.byref(s), b'wniter', 3), gemmladder.Status.SUCCESS)
        self.assertEqual(get(ctypes.byref(s), b'wniter', ctypes.byref(value)), gemmladder.Status.SUCCESS)
        self.assertEqual((value.value, s.wniter), (3, 3))
        self.assertEqual(get(ctypes.byref(s), b'colour', ctypes.byref(value)),
                         gemmladder.Status.INVALID_ARGUMENT)
        message = _library.load().gl_last_error(None).decode()
        self.assertIn("gl_tiles_get: no tile field is named 'colour' (", message)
        self.assertEqual(set(message.split('(')[1].rstrip(')').split(', ')), set(names))


class Errors(unittest.TestCase):
    def test_error_carries_status_name_and_message(self):
        e = gemmladder.Error(1, 'lda (3) < K (4)', 'gl_sgemm_ex')
        self.assertIs(e.status, gemmladder.Status.INVALID_ARGUMENT)
        self.assertEqual(e.status_name, 'invalid argument')
        self.assertEqual(e.message, 'lda (3) < K (4)')
        self.assertEqual(e.function, 'gl_sgemm_ex')
        self.assertEqual(str(e), 'invalid argument: lda (3) < K (4)')
        self.assertEqual(gemmladder.Error(42, '').status_name, 'unknown status')

    def test_handle_without_gpu_raises_no_device(self):
        if gpu_present():
            self.skipTest('there is a GPU here')
        with self.assertRaises(gemmladder.Error) as caught:
            gemmladder.Handle()
        e = caught.exception
        self.assertIs(e.status, gemmladder.Status.NO_DEVICE)
        self.assertEqual(e.function, 'gl_handle_create')
        self.assertEqual(e.status_name, _library.load().gl_status_string(4).decode())
        # The library's own message, read with gl_last_error(NULL), naming the
        # function once, and the reason in the driver's terms.
        self.assertEqual(e.message, _library.load().gl_last_error(None).decode())
        self.assertEqual(str(e), '%s: %s' % (e.status_name, e.message))
        self.assertEqual(str(e).count('gl_handle_create'), 1, str(e))
        self.assertTrue(e.message.startswith('gl_handle_create: '), e.message)
        driver, runtime = ctypes.c_int(), ctypes.c_int()
        _cudart.runtime().cudaDriverGetVersion(ctypes.byref(driver))
        _cudart.runtime().cudaRuntimeGetVersion(ctypes.byref(runtime))
        if driver.value == 0:
            self.assertIn('no NVIDIA driver is installed', e.message)
        elif driver.value < runtime.value:
            self.assertIn('older than the CUDA runtime', e.message)
        else:
            self.assertIn('finds no GPU', e.message)
        self.assertNotIn('insufficient', e.message)

    def test_handle_on_a_device_without_gpu_says_the_same(self):
        # Issue 46: Handle(device=5) where there is no driver said the
        # runtime's "CUDA driver version is insufficient for CUDA runtime
        # version"; the reason is the library's, whatever the device.
        if gpu_present():
            self.skipTest('there is a GPU here')
        with self.assertRaises(gemmladder.Error) as caught:
            gemmladder.Handle()
        plain = caught.exception
        for device, create in [(d, gemmladder.Handle) for d in (0, 5, 2**31 - 1)] + \
                [(5, gemmladder.default_handle)]:
            with self.subTest(device=device, create=create.__name__):
                with self.assertRaises(gemmladder.Error) as caught:
                    create(device=device)
                e = caught.exception
                self.assertIs(e.status, gemmladder.Status.NO_DEVICE)
                self.assertEqual((e.function, e.message, str(e)),
                                 (plain.function, plain.message, str(plain)))
                self.assertNotIn('insufficient', str(e))

    def test_handle_device_out_of_range_is_refused_before_the_library(self):
        def loaded():
            raise AssertionError('the library was loaded for a device that is no ordinal')
        handle, saved = _api.Handle, _api.load  # (_NoGpu stands in for _api.Handle)
        _api.load = loaded
        try:
            with _NoGpu():
                for device in (-1, -5, 2**31, numpy.int64(-1) if numpy else -2):
                    with self.subTest(device=device):
                        with self.assertRaisesRegex(ValueError, 'is not a CUDA device ordinal'):
                            handle(device=device)
                for device in (True, 1.0, '0'):
                    with self.subTest(device=device):
                        with self.assertRaises(TypeError):
                            handle(device=device)
        finally:
            _api.load = saved

    def test_library_not_found(self):
        missing = os.path.join(tempfile.gettempdir(), 'no-such-dir', 'libgemmladder.so.1')
        env = dict(os.environ, GEMMLADDER_LIBRARY=missing)
        code = ('import gemmladder\n'  # importing never needs the library
                'try:\n'
                '    gemmladder.library_version()\n'
                'except gemmladder.LibraryNotFoundError as e:\n'
                '    print(e)\n'
                'else:\n'
                '    raise SystemExit("loaded a library that does not exist")\n')
        done = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn('GEMMLADDER_LIBRARY=' + missing, done.stdout)
        self.assertIn('could not be loaded', done.stdout)

    def test_another_library_is_refused(self):
        code = ('import gemmladder\n'
                'try:\n'
                '    gemmladder.library_version()\n'
                'except gemmladder.LibraryNotFoundError as e:\n'
                '    print(e)\n')
        env = dict(os.environ, GEMMLADDER_LIBRARY='libc.so.6')
        done = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn('is not libgemmladder', done.stdout)


def stand_in_site(root, packages):
    """A site-packages directory under `root` holding stand-ins of NVIDIA's pip
    packages: {distribution: {path under the site: target or None}}, with
    a .dist-info (METADATA, RECORD) for each distribution not named '-'.
    A file is a symlink to its target, or a file that is no library."""
    site = os.path.join(root, 'site-packages')
    for distribution, files in packages.items():
        for relative, target in files.items():
            path = os.path.join(site, *relative.split('/'))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if target:
                os.symlink(target, path)
            else:
                with open(path, 'w') as f:
                    f.write('not a shared library\n')
        if distribution == '-':
            continue
        info = os.path.join(site, '%s-13.0.0.dist-info' % distribution.replace('-', '_'))
        os.makedirs(info)
        with open(os.path.join(info, 'METADATA'), 'w') as f:
            f.write('Metadata-Version: 2.1\nName: %s\nVersion: 13.0.0\n' % distribution)
        with open(os.path.join(info, 'RECORD'), 'w') as f:
            f.writelines('%s,,\n' % relative for relative in list(files) + [
                os.path.basename(info) + '/METADATA', os.path.basename(info) + '/RECORD'])
    return site


CU13 = {'nvidia-cuda-runtime': {'nvidia/cu13/lib/libcudart.so.13': None,
                                'nvidia/cu13/include/cuda.h': None},
        'nvidia-cublas': {'nvidia/cu13/lib/libcublas.so.13': None,
                          'nvidia/cu13/lib/libcublasLt.so.13': None}}


def loaded_cuda_files():
    """{file name: path} of the CUDA libraries mapped into a process that
    loaded the build tree's library from the system's CUDA (a subprocess)."""
    code = ('import gemmladder, re\n'
            'from gemmladder import _library\n'
            '_library.load()\n'
            'seen = {}\n'
            'for line in open("/proc/self/maps"):\n'
            '    m = re.search(r"(/\\S*/(libcudart|libcublasLt|libcublas)\\.so\\.\\d+)[.\\d]*$", line)\n'
            '    if m: seen[m.group(2)] = m.group(1)\n'
            'print(repr(seen))\n')
    env = dict(os.environ, GEMMLADDER_CUDA_FROM_PIP='0')
    done = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise unittest.SkipTest('the build tree library does not load here: ' + done.stderr[-300:])
    import ast
    return ast.literal_eval(done.stdout.strip())


class CudaFromPip(unittest.TestCase):
    """The loader preloads the CUDA runtime and cuBLAS of NVIDIA's pip packages
    (gemmladder[cuda]), found through importlib, before libgemmladder."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.saved_path = list(sys.path)
        self.addCleanup(self.restore)

    def restore(self):
        sys.path[:] = self.saved_path
        for name in [m for m in sys.modules if m == 'nvidia' or m.startswith('nvidia.')]:
            del sys.modules[name]
        import importlib
        importlib.invalidate_caches()

    def use(self, site):
        """The stand-in site alone: CUDA's real pip packages, where this
        machine has them, would be found too."""
        import importlib
        for name in [m for m in sys.modules if m == 'nvidia' or m.startswith('nvidia.')]:
            del sys.modules[name]
        sys.path[:] = [site] + [p for p in self.saved_path
                                if not p.endswith(('site-packages', 'dist-packages'))]
        importlib.invalidate_caches()

    def test_packages_by_cuda_major(self):
        self.assertEqual(_library.cuda_packages(13), [
            (['nvidia-cuda-runtime'], ['libcudart.so.13'], ['cu13/lib']),
            (['nvidia-cublas'], ['libcublasLt.so.13', 'libcublas.so.13'], ['cu13/lib'])])
        self.assertEqual(_library.cuda_packages(12)[0][0], ['nvidia-cuda-runtime-cu12'])
        self.assertEqual(_library.cuda_packages(12)[1][1], ['libcublasLt.so.12', 'libcublas.so.12'])
        self.assertEqual(_library.cuda_packages(), _library.cuda_packages(_library.CUDA_MAJOR))

    def test_found_through_the_records(self):
        site = stand_in_site(self.tmp.name, CU13)
        self.use(site)
        lib = os.path.join(site, 'nvidia', 'cu13', 'lib')
        self.assertEqual(_library.find_cuda_libraries(13), [
            ('libcudart.so.13', os.path.join(lib, 'libcudart.so.13')),
            ('libcublasLt.so.13', os.path.join(lib, 'libcublasLt.so.13')),
            ('libcublas.so.13', os.path.join(lib, 'libcublas.so.13'))])
        self.assertEqual(_library.find_cuda_libraries(12), [])

    def test_the_record_says_where(self):
        # A RECORD naming a file elsewhere (../ as pip writes for data files) is followed.
        site = stand_in_site(self.tmp.name, {'nvidia-cuda-runtime': {'../elsewhere/libcudart.so.13': None}})
        self.use(site)
        self.assertEqual(_library.find_cuda_libraries(13), [
            ('libcudart.so.13', os.path.join(self.tmp.name, 'elsewhere', 'libcudart.so.13'))])

    def test_found_in_the_namespace_package_without_records(self):
        site = stand_in_site(self.tmp.name, {'-': {'nvidia/cu13/lib/libcudart.so.13': None,
                                                   'nvidia/cu13/lib/libcublas.so.13': None}})
        self.use(site)
        lib = os.path.join(site, 'nvidia', 'cu13', 'lib')
        self.assertEqual(_library.find_cuda_libraries(13), [
            ('libcudart.so.13', os.path.join(lib, 'libcudart.so.13')),
            ('libcublas.so.13', os.path.join(lib, 'libcublas.so.13'))])

    def test_cuda_12_layout(self):
        site = stand_in_site(self.tmp.name, {
            'nvidia-cuda-runtime-cu12': {'nvidia/cuda_runtime/lib/libcudart.so.12': None},
            '-': {'nvidia/cublas/lib/libcublas.so.12': None}})
        self.use(site)
        self.assertEqual(_library.find_cuda_libraries(12), [
            ('libcudart.so.12', os.path.join(site, 'nvidia', 'cuda_runtime', 'lib', 'libcudart.so.12')),
            ('libcublas.so.12', os.path.join(site, 'nvidia', 'cublas', 'lib', 'libcublas.so.12'))])
        self.assertEqual(_library.find_cuda_libraries(13), [])

    def test_nothing_installed(self):
        self.use(self.tmp.name)
        self.assertEqual(_library.find_cuda_libraries(13), [])

    def test_wheel_library_found_through_its_record(self):
        # pip put the wheel's library in platlib, away from the package in
        # purelib: the relative path does not exist, gemmladder's RECORD says where.
        libs = '../platlib/.gemmladder.mesonpy.libs/libgemmladder.so.%d' % _library.ABI_VERSION
        site = stand_in_site(self.tmp.name, {'gemmladder': {libs: os.environ['GEMMLADDER_TEST_LIBRARY']}})
        self.use(site)
        saved = _library._location
        self.addCleanup(setattr, _library, '_location', saved)

        class Location:
            LIBRARY = '../.gemmladder.mesonpy.libs/libgemmladder.so.%d' % _library.ABI_VERSION
            LIBRARY_ORIGIN = 'wheel'
        _library._location = Location
        path = os.path.join(self.tmp.name, 'platlib', '.gemmladder.mesonpy.libs',
                            'libgemmladder.so.%d' % _library.ABI_VERSION)
        self.assertEqual(_library._candidates()[0], ('%s (wheel)' % path, path, True))
        Location.LIBRARY_ORIGIN = 'installed'  # only a wheel's library is looked for there
        self.assertIsNone(_library._candidates()[0][1])

    def run_loader(self, site, code, **env):
        """Runs `code` after loading the build tree's library in a subprocess
        with `site` on its path, and no site-packages (-S: this machine's own
        CUDA pip packages would be found too); returns its output."""
        environ = dict(os.environ, **env)
        environ['PYTHONPATH'] = os.pathsep.join([site, environ.get('PYTHONPATH', '')])
        if 'GEMMLADDER_CUDA_FROM_PIP' not in env:
            environ.pop('GEMMLADDER_CUDA_FROM_PIP', None)
        done = subprocess.run([sys.executable, '-S', '-c', 'import gemmladder\nfrom gemmladder import _library\n'
                               + code], env=environ, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout

    def real_site(self):
        """Stand-ins that are the system's own CUDA libraries (symlinks)."""
        system = loaded_cuda_files()
        if sorted(system) != ['libcublas', 'libcublasLt', 'libcudart']:
            self.skipTest('the library did not load libcudart, libcublas and libcublasLt: %r' % system)
        packages = {'nvidia-cuda-runtime': {}, 'nvidia-cublas': {}}
        for name, path in system.items():
            packages['nvidia-cuda-runtime' if name == 'libcudart' else 'nvidia-cublas'][
                'nvidia/cu%d/lib/%s' % (_library.CUDA_MAJOR, os.path.basename(path))] = path
        return stand_in_site(self.tmp.name, packages)

    def test_preloaded_before_the_library(self):
        site = self.real_site()
        lib = os.path.join(site, 'nvidia', 'cu%d' % _library.CUDA_MAJOR, 'lib')
        out = self.run_loader(site, '_library.load()\n'
                              'print(repr(_library.cuda_preloaded()))\n'
                              'from gemmladder import _cudart\n'
                              '_cudart.runtime()\n'  # the runtime the library uses is found
                              'print(gemmladder.library_version())\n')
        preloaded, version = out.splitlines()
        major = _library.CUDA_MAJOR
        self.assertEqual(eval(preloaded), [
            ('libcudart.so.%d' % major, os.path.join(lib, 'libcudart.so.%d' % major)),
            ('libcublasLt.so.%d' % major, os.path.join(lib, 'libcublasLt.so.%d' % major)),
            ('libcublas.so.%d' % major, os.path.join(lib, 'libcublas.so.%d' % major))])
        self.assertEqual(version, support.header_version())

    def test_a_loaded_runtime_is_not_loaded_twice(self):
        site = self.real_site()
        major = _library.CUDA_MAJOR
        out = self.run_loader(site, 'import ctypes\n'
                              'ctypes.CDLL("libcudart.so.%d", mode=ctypes.RTLD_GLOBAL)\n'
                              '_library.load()\n'
                              'print(repr([n for n, p in _library.cuda_preloaded()]))\n' % major)
        self.assertEqual(eval(out), ['libcublasLt.so.%d' % major, 'libcublas.so.%d' % major])

    def test_the_system_cuda_still_serves(self):
        # Stand-ins that are no libraries: the preload fails, the system's copies load.
        loaded_cuda_files()  # skips where the library does not load
        site = stand_in_site(self.tmp.name, CU13 if _library.CUDA_MAJOR == 13 else {})
        out = self.run_loader(site, '_library.load()\n'
                              'print(repr(_library.cuda_preloaded()))\n'
                              'print(gemmladder.library_version())\n')
        self.assertEqual(out.splitlines(), ['[]', support.header_version()])

    def test_switched_off(self):
        site = self.real_site()
        out = self.run_loader(site, '_library.load()\nprint(repr(_library.cuda_preloaded()))\n',
                              GEMMLADDER_CUDA_FROM_PIP='0')
        self.assertEqual(out.strip(), '[]')

    def test_not_found_message_names_the_cuda_libraries(self):
        site = stand_in_site(self.tmp.name, CU13)
        code = ('_library._candidates = lambda: []\n'
                'try:\n'
                '    _library.load()\n'
                'except _library.LibraryNotFoundError as e:\n'
                '    print(e)\n')
        out = self.run_loader(site, code)
        lib = os.path.join(site, 'nvidia', 'cu13', 'lib')
        if _library.CUDA_MAJOR == 13:
            self.assertIn('CUDA libraries from pip packages:', out)
            self.assertIn('libcudart.so.13: %s could not be loaded' % os.path.join(lib, 'libcudart.so.13'), out)
        out = self.run_loader(self.tmp.name, code)
        self.assertIn('pip install gemmladder[cuda]', out)


class _NoGpu:
    """Within it, any use of the CUDA runtime or creation of a default handle fails the test."""

    def __enter__(self):
        def touched(*args, **kwargs):
            raise AssertionError('the GPU was touched before the arguments were rejected')
        self.saved = _cudart.runtime, _api.default_handle, _api.Handle
        _cudart.runtime = _api.default_handle = _api.Handle = touched
        return self

    def __exit__(self, *exc):
        _cudart.runtime, _api.default_handle, _api.Handle = self.saved


class ArgumentErrors(unittest.TestCase):
    """Every call here is wrong, and must say so before any CUDA call."""

    def rejects(self, error, pattern, *args, **kwargs):
        with _NoGpu(), self.assertRaisesRegex(error, pattern):
            gemmladder.gemm(*args, **kwargs)

    def test_dtype(self):
        for typestr in ('<f8', '<f2', '<i4'):
            self.rejects(TypeError, 'float32 only', FakeArray(4, 5, typestr=typestr), FakeArray(5, 3))
            self.rejects(TypeError, 'float32 only', FakeArray(4, 5), FakeArray(5, 3), out=FakeArray(4, 3, typestr=typestr))

    def test_dimensions(self):
        one_d = FakeArray(4, 5, extra={'shape': (20,), 'strides': None})
        self.rejects(ValueError, 'A must be a 2-D matrix, got shape \\(20,\\)', one_d, FakeArray(5, 3))
        four_d = FakeArray(4, 5, extra={'shape': (1, 2, 2, 5), 'strides': None})
        self.rejects(ValueError, 'B must be a 2-D matrix, got shape \\(1, 2, 2, 5\\) \\(4-D\\); gemmladder takes '
                     '2-D matrices and 3-D batches', FakeArray(4, 5), four_d)
        three_d = FakeArray(4, 5, extra={'shape': (2, 2, 5), 'strides': None})  # a batch, of 2 x 5 matrices
        self.rejects(ValueError, 'shapes do not match: op\\(A\\) is 4 x 5 \\(A 4 x 5\\) but op\\(B\\) is 2 x 5 '
                     '\\(B 2 x 2 x 5\\)', FakeArray(4, 5), three_d)

    def test_shape_mismatch(self):
        self.rejects(ValueError, 'shapes do not match: op\\(A\\) is 4 x 5 .* op\\(B\\) is 6 x 3',
                     FakeArray(4, 5), FakeArray(6, 3))
        self.rejects(ValueError, 'shapes do not match', FakeArray(4, 5), FakeArray(5, 3), trans_a=True)
        self.rejects(ValueError, 'out is 3 x 4 but op\\(A\\) op\\(B\\) is 4 x 3',
                     FakeArray(4, 5), FakeArray(5, 3), out=FakeArray(3, 4))

    def test_not_contiguous(self):
        every_other = FakeArray(4, 5, strides=(10, 2))  # a[:, ::2] of a 4 x 10 matrix
        self.rejects(ValueError, 'neither contiguous rows nor contiguous columns', every_other, FakeArray(5, 3))
        overlapping_rows = FakeArray(4, 5, strides=(3, 1))  # rows overlap: no ld can say it
        self.rejects(ValueError, 'neither', overlapping_rows, FakeArray(5, 3))
        broadcast = FakeArray(4, 5, strides=(0, 1))
        self.rejects(ValueError, 'neither', broadcast, FakeArray(5, 3))
        reversed_rows = FakeArray(4, 5, strides=(-5, 1), offset=15)
        self.rejects(ValueError, 'neither', reversed_rows, FakeArray(5, 3))
        odd_bytes = FakeArray(4, 5, extra={'strides': (22, 4)})
        self.rejects(ValueError, 'not whole float32 elements', odd_bytes, FakeArray(5, 3))
        self.rejects(ValueError, 'neither', FakeArray(4, 5), FakeArray(5, 3), out=FakeArray(4, 3, strides=(6, 2)))

    def test_kinds(self):
        self.rejects(TypeError, 'A: expected a numpy array, a CUDA array .* or a DLPack tensor', [[1.0]], FakeArray(1, 1))
        self.rejects(TypeError, 'all be numpy arrays or all be CUDA arrays',
                     FakeArray(4, 5), FakeArray(5, 3, device=False))
        self.rejects(TypeError, 'all be numpy arrays or all be CUDA arrays',
                     FakeArray(4, 5, device=False), FakeArray(5, 3, device=False), out=FakeArray(4, 3))

    def test_scalars_and_flags(self):
        a, b = FakeArray(4, 5), FakeArray(5, 3)
        self.rejects(TypeError, 'alpha must be a real number', a, b, alpha='2')
        self.rejects(ValueError, 'alpha = 1e\\+39 does not fit a float32', a, b, alpha=1e39)
        self.rejects(ValueError, 'beta = -1e\\+300 does not fit a float32', a, b, beta=-1e300,
                     out=FakeArray(4, 3))
        self.rejects(ValueError, 'alpha = 1e-50 is too small for a float32', a, b, alpha=1e-50)
        self.rejects(TypeError, 'beta must be a real number', a, b, beta=1j, out=FakeArray(4, 3))
        self.rejects(TypeError, 'trans_a must be', a, b, trans_a=1)
        self.rejects(ValueError, 'trans_b must be', a, b, trans_b='X')
        self.rejects(ValueError, 'beta = 0.5 reads C: pass it as out=', a, b, beta=0.5)
        self.rejects(ValueError, 'unknown variant', a, b, variant='fastest')
        self.rejects(TypeError, 'stream must be', a, b, stream='fast')

    def test_output_constraints(self):
        a, b = FakeArray(4, 4), FakeArray(4, 4)
        self.rejects(ValueError, 'out is read-only', a, b, out=FakeArray(4, 4, readonly=True))
        self.rejects(ValueError, 'out overlaps A', a, b, out=a)
        big = FakeArray(8, 8)  # two overlapping 4 x 4 windows of it
        self.rejects(ValueError, 'out overlaps B', a, FakeArray(4, 4, strides=(8, 1), base=big, offset=3),
                     out=FakeArray(4, 4, strides=(8, 1), base=big, offset=2))

    def test_interface_details(self):
        self.rejects(ValueError, 'stream 0 is disallowed', FakeArray(4, 5, stream=0), FakeArray(5, 3))
        self.rejects(ValueError, 'masked', FakeArray(4, 5, extra={'mask': object()}), FakeArray(5, 3))

    def test_scalars_that_fit(self):
        # Largest finite float32, infinity and NaN are float32 values; subnormals too.
        plan = _matrix.Plan(FakeArray(4, 5), FakeArray(5, 3), FakeArray(4, 3), 3.4028234e38,
                            float('inf'), False, False)
        self.assertEqual((plan.alpha, plan.beta), (3.4028234e38, float('inf')))
        self.assertEqual(_matrix.Plan(FakeArray(4, 5), FakeArray(5, 3), None, 1e-40, 0, False, False).alpha,
                         1e-40)

    @unittest.skipIf(numpy is None, 'numpy is not installed')
    def test_numpy_arrays(self):
        a = numpy.ones((4, 5), dtype=numpy.float32)
        b = numpy.ones((5, 3), dtype=numpy.float32)
        self.rejects(TypeError, 'float64; gemmladder computes in float32 only', a.astype(numpy.float64), b)
        self.rejects(ValueError, '2-D', a.ravel(), b)
        self.rejects(ValueError, 'shapes do not match', a, b.T)
        frozen = numpy.zeros((4, 3), dtype=numpy.float32)
        frozen.flags.writeable = False
        self.rejects(ValueError, 'read-only', a, b, out=frozen)
        self.rejects(ValueError, 'read-only', a, b, out=numpy.broadcast_to(numpy.float32(0), (4, 3)))
        self.rejects(ValueError, 'out overlaps A', a[:, :3], b[:3, :3], out=a[:, 2:5])
        every_other = numpy.ones((4, 10), numpy.float32)[:, ::2]  # read through a copy
        self.rejects(ValueError, 'out overlaps A', every_other, b[:, :2],
                     out=every_other.base[:, 1:3])
        self.rejects(TypeError, "trans_a must be True, False, 'N' or 'T'", a, b, trans_a=numpy.int32(1))

    @unittest.skipIf(numpy is None, 'numpy is not installed')
    def test_masked_arrays(self):
        a = numpy.ma.masked_array(numpy.ones((4, 5), numpy.float32), mask=numpy.eye(4, 5, dtype=bool))
        b = numpy.ones((5, 3), dtype=numpy.float32)
        self.rejects(ValueError, 'A is a numpy masked array, whose mask gemmladder would ignore; '
                     'pass A.filled\\(0\\)', a, b)
        self.rejects(ValueError, 'out is a numpy masked array', b.T, b,
                     out=numpy.ma.masked_array(numpy.zeros((3, 3), numpy.float32)))


    @unittest.skipIf(numpy is None, 'numpy is not installed')
    def test_numpy_bools_are_flags(self):
        plan = _matrix.Plan(FakeArray(5, 4), FakeArray(3, 5), None, 1.0, 0.0, numpy.True_, numpy.bool_(True))
        self.assertEqual((plan.M, plan.N, plan.K), (4, 3, 5))
        plan = _matrix.Plan(FakeArray(4, 5), FakeArray(5, 3), None, 1.0, 0.0, numpy.False_, 'n')
        self.assertEqual((plan.M, plan.N, plan.K), (4, 3, 5))

    def test_dlpack_tensors(self):
        a, b = FakeArray(4, 5), FakeArray(5, 3)
        self.rejects(TypeError, "A has dtype '=f8'; gemmladder computes in float32 only",
                     FakeDLPack(FakeArray(4, 5), bits=64), b)
        self.rejects(TypeError, "B has dtype '=i4'", a, FakeDLPack(b, code=0))
        self.rejects(ValueError, 'A must be a 2-D matrix, got shape \\(20,\\)', FakeDLPack(a, shape=(20,)), b)
        self.rejects(TypeError, 'A is ROCm memory \\(DLPack device type 10\\)', FakeDLPack(a, device_type=10), b)
        self.rejects(ValueError, 'out is read-only', FakeDLPack(a), FakeDLPack(b),
                     out=FakeDLPack(FakeArray(4, 3), versioned=True, flags=1))
        self.rejects(TypeError, 'all be numpy arrays or all be CUDA arrays', FakeDLPack(a, device_type=1), b)


class Streams(unittest.TestCase):
    def test_stream_values(self):
        class TorchLike:
            cuda_stream = 0x1234

        class CupyLike:
            ptr = 0x5678

        class Protocol:
            def __cuda_stream__(self):
                return (0, 0x9abc)

        self.assertIsNone(_api._stream_value(None))
        self.assertEqual(_api._stream_value(0), 0)
        self.assertEqual(_api._stream_value(1), 0)  # cudaStreamLegacy is the library's NULL
        self.assertEqual(_api._stream_value(2), 2)  # cudaStreamPerThread stays itself
        self.assertEqual(_api._stream_value(TorchLike()), 0x1234)
        self.assertEqual(_api._stream_value(CupyLike()), 0x5678)
        self.assertEqual(_api._stream_value(Protocol()), 0x9abc)
        for bad in ('s', 1.5, True):
            with self.assertRaises(TypeError):
                _api._stream_value(bad)


def emulate_sgemm_ex(layout, trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc):
    """gl_sgemm_ex as include/gemmladder.h defines it, on host memory: if the
    binding's arguments give the right C here, they do in the library."""
    def at(address, ld, i, j):  # element (i, j) of a matrix as stored
        return ctypes.c_float.from_address(address + 4 * (i * ld + j if layout == 0 else i + j * ld))

    def op(address, ld, transpose, i, j):
        return (at(address, ld, j, i) if transpose else at(address, ld, i, j)).value

    # The header's leading-dimension rule, for A, B and C as stored.
    for ld, rows, cols in ((lda, *((K, M) if trans_a else (M, K))), (ldb, *((N, K) if trans_b else (K, N))),
                           (ldc, M, N)):
        assert ld >= max(1, cols if layout == 0 else rows), (ld, rows, cols, layout)
    for i in range(M):
        for j in range(N):
            s = sum(op(A, lda, trans_a, i, k) * op(B, ldb, trans_b, k, j) for k in range(K))
            c = at(C, ldc, i, j)
            c.value = alpha * s + (beta * c.value if beta else 0.0)  # beta == 0: C is not read


def emulate(plan):
    """Runs the call a plan describes on the arrays' own (host) memory."""
    emulate_sgemm_ex(0 if plan.layout == _matrix.ROW else 1, plan.a.transpose, plan.b.transpose,
                     plan.M, plan.N, plan.K, plan.alpha, plan.a.matrix.address, plan.a.ld,
                     plan.b.matrix.address, plan.b.ld, plan.beta, plan.c.matrix.address, plan.c.ld)


class LayoutMapping(unittest.TestCase):
    """Row- and column-major inputs and outputs, padded or not, transposed or
    not: the plan must describe exactly the product asked for."""

    def storage(self, rows, cols, kind, rng):
        """A rows x cols FakeArray stored C-order, Fortran-order, or padded."""
        values = support.random_matrix(rows, cols, rng)
        strides = {'C': (cols, 1), 'F': (1, rows), 'padded_C': (cols + 3, 1), 'padded_F': (1, rows + 2)}[kind]
        array = FakeArray(rows, cols, strides=strides, values=values)
        return array, array.tolist()  # the values as stored, rounded to float32

    def test_every_combination(self):
        rng = support.rng(7)
        kinds = ('C', 'F', 'padded_C', 'padded_F')
        for M, N, K in ((3, 4, 5), (1, 4, 3), (4, 1, 3), (3, 4, 1), (1, 1, 1)):
            for trans_a in (False, True):
                for trans_b in (False, True):
                    for ka in kinds:
                        for kb in kinds:
                            for kc in kinds + (None,):
                                with self.subTest(M=M, N=N, K=K, trans_a=trans_a, trans_b=trans_b,
                                                  A=ka, B=kb, C=kc):
                                    self.check(M, N, K, trans_a, trans_b, ka, kb, kc, rng)

    def check(self, M, N, K, trans_a, trans_b, ka, kb, kc, rng):
        a, A = self.storage(*((K, M) if trans_a else (M, K)), ka, rng)
        b, B = self.storage(*((N, K) if trans_b else (K, N)), kb, rng)
        alpha, beta = 1.5, (-0.5 if kc else 0.0)
        c, C = self.storage(M, N, kc, rng) if kc else (None, None)
        plan = _matrix.Plan(a, b, c, alpha, beta, trans_a, trans_b)
        self.assertEqual((plan.M, plan.N, plan.K), (M, N, K))
        if c is None:
            c = FakeArray(M, N)
            plan.set_output(c)
        emulate(plan)
        want = support.reference(A, B, alpha, beta, C, trans_a, trans_b)
        self.assertLess(support.relative_error(c.tolist(), want), 1e-6)

    def test_zero_sizes_are_planned(self):
        for M, N, K in ((0, 3, 4), (3, 0, 4), (3, 4, 0)):
            plan = _matrix.Plan(FakeArray(M, K), FakeArray(K, N), None, 1.0, 0.0, False, False)
            self.assertEqual((plan.M, plan.N, plan.K), (M, N, K))
            self.assertTrue(plan.a.ld >= 1 and plan.b.ld >= 1)

    def test_output_layout_chooses_library_layout(self):
        a, b = FakeArray(3, 4), FakeArray(4, 5)
        self.assertEqual(_matrix.Plan(a, b, FakeArray(3, 5), 1, 0, False, False).layout, _matrix.ROW)
        plan = _matrix.Plan(a, b, FakeArray(3, 5, strides=(1, 3)), 1, 0, False, False)
        self.assertEqual(plan.layout, _matrix.COL)
        self.assertTrue(plan.a.transpose and plan.b.transpose)  # C-order inputs read column-major


class _SimulatedHandle(_api.Handle):
    """A Handle whose library call is emulated on host memory (no GPU): it
    records the stream each product ran on."""

    def __init__(self, stream=0):
        self._ptr, self._device, self._stream, self.calls, self.products = 1, 0, stream, [], []

    @property
    def stream(self):
        return self._stream

    def _require_available(self, number):
        pass

    def _call(self, plan, number, a_ptr, a_ld, b_ptr, b_ld, c_ptr, c_ld, stream):
        # What the real call would pass to gl_sgemm_ex must reach C unchanged.
        arguments = (self._ptr, number, 0 if plan.layout == _matrix.ROW else 1, int(plan.a.transpose),
                     int(plan.b.transpose), plan.M, plan.N, plan.K, plan.alpha, a_ptr or None, a_ld,
                     b_ptr or None, b_ld, plan.beta, c_ptr or None, c_ld)
        for ctype, value in zip(_library._CORE['gl_sgemm_ex'][1], arguments):
            c_value(ctype, value)
        c_value(ctypes.c_void_p, stream or None)
        self.calls.append(self._stream if stream is None else stream)
        self.products.append({'variant': number, 'alpha': plan.alpha, 'beta': plan.beta,
                              'trans_a': plan.a.transpose, 'trans_b': plan.b.transpose})
        emulate_sgemm_ex(0 if plan.layout == _matrix.ROW else 1, plan.a.transpose, plan.b.transpose,
                         plan.M, plan.N, plan.K, plan.alpha, a_ptr, a_ld, b_ptr, b_ld, plan.beta, c_ptr, c_ld)

    def close(self):
        self._ptr = None


class _SimulatedRuntime:
    """Replaces the CUDA runtime calls of the binding with host-memory
    equivalents; device buffers start as NaN, as fresh GPU memory might."""

    class Buffer:
        def __init__(self, nbytes):
            self.memory = (ctypes.c_float * max(1, nbytes // 4))(*([float('nan')] * max(1, nbytes // 4)))
            self.address = ctypes.addressof(self.memory) if nbytes else None

        def free(self, report_errors=True):
            self.freed = True

    def __enter__(self):
        self.waits, self.syncs = [], []
        names = ('DeviceBuffer', 'copy_2d', 'synchronize', 'make_wait', 'on_device', 'pointer_device')
        self.saved = {n: getattr(_cudart, n) for n in names}

        def copy_2d(dst, dst_pitch, src, src_pitch, width, height, kind, stream):
            if not (width and height):  # as _cudart.copy_2d: nothing to copy, maybe no buffer
                return
            for row in range(height):
                ctypes.memmove(dst + row * dst_pitch, src + row * src_pitch, width)

        class NoSwitch:
            def __init__(self, device):
                pass

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                pass

        _cudart.DeviceBuffer = self.Buffer
        _cudart.copy_2d = copy_2d
        _cudart.synchronize = self.syncs.append
        _cudart.make_wait = lambda waiter, producer: self.waits.append((waiter or 0, producer or 0))
        _cudart.on_device = NoSwitch
        _cudart.pointer_device = lambda address: None
        return self

    def __exit__(self, *exc):
        for name, value in self.saved.items():
            setattr(_cudart, name, value)


class SimulatedCalls(unittest.TestCase):
    """Whole calls through Handle.gemm with the GPU emulated: the host path's
    copies and packed leading dimensions, and which stream the product runs on."""

    def test_host_arrays_every_layout(self):
        rng = support.rng(3)
        kinds = {'C': lambda r, c: (c, 1), 'F': lambda r, c: (1, r), 'padded_C': lambda r, c: (c + 2, 1),
                 'padded_F': lambda r, c: (1, r + 1)}
        M, N, K = 3, 4, 5
        for trans_a in (False, True):
            for ka, sa in kinds.items():
                for kc, sc in kinds.items():
                    with self.subTest(trans_a=trans_a, A=ka, C=kc), _SimulatedRuntime() as rt:
                        shape_a = (K, M) if trans_a else (M, K)
                        a = FakeArray(*shape_a, strides=sa(*shape_a), device=False,
                                      values=support.random_matrix(*shape_a, rng))
                        b = FakeArray(N, K, strides=(1, N), device=False, values=support.random_matrix(N, K, rng))
                        c = FakeArray(M, N, strides=sc(M, N), device=False, values=support.random_matrix(M, N, rng))
                        padding = [c.buffer[i] for i in range(len(c.buffer))]
                        c0 = c.tolist()
                        h = _SimulatedHandle(stream=0x77)
                        got = h.gemm(a, b, trans_a=trans_a, trans_b=True, alpha=0.5, beta=2.0, out=c)
                        self.assertIs(got, c)
                        want = support.reference(a.tolist(), b.tolist(), 0.5, 2.0, c0, trans_a, True)
                        self.assertLess(support.relative_error(c.tolist(), want), 1e-6)
                        # Only C's elements were written back, never its padding.
                        cells = {c._index((i, j)) for i in range(M) for j in range(N)}
                        for i, value in enumerate(padding):
                            if i not in cells:
                                self.assertEqual(c.buffer[i], value)
                        self.assertEqual(h.calls, [0x77])       # on the handle's stream
                        self.assertEqual(rt.syncs, [0x77])      # which is waited for

    def test_host_beta_zero_never_reads_c(self):
        with _SimulatedRuntime():
            c = FakeArray(2, 2, device=False, values=[[float('nan')] * 2] * 2)
            a = FakeArray(2, 3, device=False, values=[[1, 2, 3], [4, 5, 6]])
            b = FakeArray(3, 2, device=False, values=[[1, 0], [0, 1], [1, 1]])
            _SimulatedHandle().gemm(a, b, out=c)
            self.assertEqual(c.tolist(), [[4, 5], [10, 11]])

    def test_device_streams(self):
        def arrays(sa=None, sb=None, sc=None):
            return (FakeArray(2, 3, stream=sa, values=[[1, 2, 3], [4, 5, 6]]),
                    FakeArray(3, 2, stream=sb, values=[[1, 0], [0, 1], [1, 1]]),
                    FakeArray(2, 2, stream=sc))

        cases = [
            # (streams of A, B, out; explicit stream=) -> run stream, waits made
            ((None, None, None), None, 0x10, []),            # none named: the handle's
            ((0x20, None, None), None, 0x20, []),            # A's stream
            ((1, None, None), None, 0, []),                  # legacy default stream = NULL
            ((0x20, 0x30, None), None, 0x20, [(0x20, 0x30), (0x30, 0x20)]),
            ((0x20, 0x30, 0x40), None, 0x40, [(0x40, 0x20), (0x40, 0x30), (0x20, 0x40), (0x30, 0x40)]),
            ((0x20, 0x20, None), 0x50, 0x50, [(0x50, 0x20), (0x20, 0x50)]),
        ]
        for streams, explicit, run, waits in cases:
            with self.subTest(streams=streams, explicit=explicit), _SimulatedRuntime() as rt:
                a, b, c = arrays(*streams)
                h = _SimulatedHandle(stream=0x10)
                self.assertIs(h.gemm(a, b, out=c, stream=explicit), c)
                self.assertEqual(c.tolist(), [[4, 5], [10, 11]])
                self.assertEqual(h.calls, [run])
                self.assertEqual(rt.waits, waits)
                self.assertEqual(rt.syncs, [])  # CUDA arrays: asynchronous, like the C call

    @unittest.skipIf(numpy is None, 'numpy is not installed')
    def test_numpy_in_numpy_out(self):
        rng = numpy.random.default_rng(5)
        a = numpy.asfortranarray(rng.uniform(-1, 1, (7, 5)).astype(numpy.float32))
        b = rng.uniform(-1, 1, (6, 5)).astype(numpy.float32)
        with _SimulatedRuntime():
            c = _SimulatedHandle().gemm(a, b.T)          # b.T is Fortran-ordered: no copy
            padded = numpy.zeros((7, 9), numpy.float32)
            _SimulatedHandle().sgemm(a[:, :4], b[:4, :3] + 0, out=padded[:, 2:5])
        self.assertIsInstance(c, numpy.ndarray)
        self.assertEqual((c.shape, c.dtype, c.flags.c_contiguous), ((7, 6), numpy.float32, True))
        ref = a.astype(numpy.float64) @ b.T.astype(numpy.float64)
        self.assertLess(numpy.linalg.norm(c - ref) / numpy.linalg.norm(ref), 1e-6)
        ref = a[:, :4].astype(numpy.float64) @ b[:4, :3]
        self.assertLess(numpy.linalg.norm(padded[:, 2:5] - ref) / numpy.linalg.norm(ref), 1e-6)
        self.assertFalse(padded[:, :2].any() or padded[:, 5:].any())

    @unittest.skipIf(numpy is None, 'numpy is not installed')
    def test_host_arrays_of_any_strides(self):
        rng = numpy.random.default_rng(8)
        base = rng.uniform(-1, 1, (12, 15)).astype(numpy.float32)
        a = base[::2, ::3]              # 6 x 5: neither rows nor columns contiguous
        b = base[::-1, 1:4][:5]         # 5 x 3, rows in reverse order
        whole = numpy.full((6, 9), 7.0, numpy.float32)
        out = whole[:, ::3]             # 6 x 3, every third column
        before, c0 = base.copy(), out.copy()
        with _SimulatedRuntime():
            self.assertIs(_SimulatedHandle().gemm(a, b, alpha=0.5, beta=2.0, out=out), out)
            fresh = _SimulatedHandle().gemm(a, numpy.broadcast_to(b[:1], (5, 3)))
        ref = 0.5 * a.astype(numpy.float64) @ b + 2.0 * c0
        self.assertLess(numpy.linalg.norm(out - ref) / numpy.linalg.norm(ref), 1e-6)
        self.assertTrue((numpy.delete(whole, [0, 3, 6], axis=1) == 7.0).all())  # only out's elements
        self.assertTrue((base == before).all())
        ref = a.astype(numpy.float64) @ numpy.broadcast_to(b[:1], (5, 3))
        self.assertTrue(fresh.flags.c_contiguous)
        self.assertLess(numpy.linalg.norm(fresh - ref) / numpy.linalg.norm(ref), 1e-6)

    def test_dlpack_device_streams(self):
        """A DLPack tensor on the GPU is exported for the stream the product
        runs on: stream=, else the handle's (1, the legacy default, for 0)."""
        for handle_stream, explicit, exported, run in ((0x10, None, 0x10, 0x10), (0x10, 0x50, 0x50, 0x50),
                                                       (0, None, 1, 0)):
            with self.subTest(handle=handle_stream, explicit=explicit), _SimulatedRuntime() as rt:
                a = FakeDLPack(FakeArray(2, 3, values=[[1, 2, 3], [4, 5, 6]]))
                b = FakeDLPack(FakeArray(3, 2, values=[[1, 0], [0, 1], [1, 1]]), versioned=True)
                c = FakeArray(2, 2)
                h = _SimulatedHandle(stream=handle_stream)
                self.assertIs(h.gemm(a, b, out=c, stream=explicit), c)
                self.assertEqual(c.tolist(), [[4, 5], [10, 11]])
                self.assertEqual((a.streams, b.streams), ([exported], [exported]))
                self.assertEqual(h.calls, [run])
                self.assertEqual(rt.waits, [])

    def test_dlpack_host_tensors(self):
        a = FakeDLPack(FakeArray(2, 3, device=False, values=[[1, 2, 3], [4, 5, 6]]), device_type=1)
        b = FakeDLPack(FakeArray(3, 2, device=False, values=[[1, 0], [0, 1], [1, 1]]), device_type=3)
        c = FakeArray(2, 2, device=False)
        with _SimulatedRuntime():
            self.assertIs(_SimulatedHandle(stream=0x10).gemm(a, b, out=c), c)
        self.assertEqual(c.tolist(), [[4, 5], [10, 11]])
        self.assertEqual((a.streams, b.streams), ([None], [None]))  # host memory: no stream

    @unittest.skipIf(numpy is None or not hasattr(numpy, 'from_dlpack'), 'numpy with DLPack is not installed')
    def test_numpy_through_dlpack(self):
        rng = numpy.random.default_rng(9)
        a = rng.uniform(-1, 1, (7, 5)).astype(numpy.float32)
        b = rng.uniform(-1, 1, (6, 5)).astype(numpy.float32)
        with _SimulatedRuntime():  # numpy's own capsules, without its array interface
            c = _SimulatedHandle().gemm(DLPackOnly(a), DLPackOnly(b[:, ::-1].T), alpha=2.0)
        self.assertIsInstance(c, numpy.ndarray)  # host arrays of other kinds come back as numpy
        ref = 2.0 * a.astype(numpy.float64) @ b[:, ::-1].T
        self.assertLess(numpy.linalg.norm(c - ref) / numpy.linalg.norm(ref), 1e-6)

    def test_device_output_needs_a_known_framework(self):
        with _SimulatedRuntime():
            with self.assertRaisesRegex(TypeError, 'cannot allocate the result like A'):
                _SimulatedHandle().gemm(FakeArray(2, 3), FakeArray(3, 2))


def c_value(ctype, value):
    """value as a C parameter of type ctype, asserting that ctypes passes it
    unchanged: ctypes wraps ints silently (2**64 + 5 arrives as 5), rounds a
    float past float32 to infinity, and C reads bytes up to the first NUL."""
    if ctype is ctypes.c_float:
        assert type(value) is float, ('float', value)
        try:
            single = struct.unpack('=f', struct.pack('=f', value))[0]
        except OverflowError:
            raise AssertionError('%r would reach C as infinity' % value) from None
        assert single != 0.0 or value == 0.0, '%r would reach C as 0' % value
    elif ctype is ctypes.c_void_p:
        assert value is None or (type(value) is int and 0 < value < 2**64), ('void *', value)
    elif ctype is ctypes.c_char_p:
        assert value is None or (type(value) is bytes and b'\0' not in value), ('char *', value)
    elif ctype in (ctypes.c_int, ctypes.c_long, ctypes.c_longlong, ctypes.c_uint32):
        bits = 8 * ctypes.sizeof(ctype)
        low, high = (0, 2**bits) if ctype is ctypes.c_uint32 else (-2**(bits - 1), 2**(bits - 1))
        assert isinstance(value, int) and not isinstance(value, bool) and low <= value < high, \
            (ctype.__name__, value)
    return value


class _RecordingLibrary:
    """libgemmladder with the functions that take a handle or a file replaced:
    those a test may reach record their arguments, after checking each
    reaches C unchanged (c_value), and succeed; the others fail the test.
    The rest is the real library."""

    RECORDED = ('gl_set_stream', 'gl_variant_available', 'gl_sgemm_plan', 'gl_tuning_query',
                'gl_set_tiles', 'gl_tuning_load', 'gl_tuning_check', 'gl_variant_config_count')
    FORBIDDEN = ('gl_sgemm', 'gl_sgemm_ex', 'gl_get_stream', 'gl_last_error', 'gl_handle_create',
                 'gl_handle_destroy', 'gl_handle_device', 'gl_variant_config')

    def __init__(self):
        self.calls = []

    def __enter__(self):
        self.saved = _api.load, _library.optional
        _api.load = lambda: self
        _library.optional = self.__getattr__
        return self

    def __exit__(self, *exc):
        _api.load, _library.optional = self.saved

    def __getattr__(self, name):
        if name in self.FORBIDDEN:
            def forbidden(*arguments):
                raise AssertionError('%s was called' % name)
            return forbidden
        if name not in self.RECORDED:
            return getattr(_library.load(), name)
        argtypes = (_library._CORE.get(name) or _library._OPTIONAL[name])[1]

        def record(*arguments):
            assert len(arguments) == len(argtypes), (name, arguments)
            self.calls.append((name, [c_value(t, a) for t, a in zip(argtypes, arguments)]))
            return 0
        return record


class _UncreatedHandle(_api.Handle):
    """An open Handle as far as Python can tell, never created in C: its
    calls must go to a _RecordingLibrary."""

    def __init__(self):
        self._ptr, self._device = 0x1234, 0

    def close(self):
        self._ptr = None


class _Reached(Exception):
    """Raised where a Handle being created would first touch the CUDA runtime."""


class _DeviceRecorder:
    """Handle(device) and default_handle(device) as far as the CUDA runtime:
    the device they would make current is raised as _Reached(device)."""

    def __enter__(self):
        def reached(device):
            if device is not None:
                c_value(ctypes.c_int, device)  # cudaSetDevice(int)
            raise _Reached(device)
        self.saved = _cudart.on_device, _api._local
        _cudart.on_device, _api._local = reached, threading.local()  # no cached default handles
        return self

    def __exit__(self, *exc):
        _cudart.on_device, _api._local = self.saved


T, V, SKIP = TypeError, ValueError, None  # the errors; SKIP: the argument gives the value a meaning of its own
NAN = float('nan')
FLOAT32_MAX = struct.unpack('=f', struct.pack('=I', 0x7f7fffff))[0]
D, F = decimal.Decimal, fractions.Fraction
Var = gemmladder.Variant
KINDS = ('real', 'size', 'variant', 'device', 'stream', 'flag', 'trans', 'path')


def argument_values():
    """(label, value, {kind: what that kind of argument makes of it: the value
    that reaches C, or the error raised}) for every type a caller might pass."""
    rows = [
        # label                 value              real         size   variant        device  stream     flag   trans  path
        ('int',                 2,                 2.0,         2,     Var.COALESCED, 2,      2,         T,     T,     T),
        ('zero',                0,                 0.0,         0,     Var.CUBLAS,    0,      0,         T,     T,     T),
        ('negative int',        -3,                -3.0,        -3,    V,             V,      V,         T,     T,     T),
        ('int past int32',      2**31,             2.0**31,     2**31, V,             V,      2**31,     T,     T,     T),
        ('int past int64',      2**63,             2.0**63,     V,     V,             V,      2**63,     T,     T,     T),
        ('int below int64',     -2**63 - 1,        -2.0**63,    V,     V,             V,      V,         T,     T,     T),
        ('int past uint64',     2**64 + 5,         2.0**64,     V,     V,             V,      V,         T,     T,     T),
        ('int past float32',    10**39,            V,           V,     V,             V,      V,         T,     T,     T),
        ('huge int',            10**400,           V,           V,     V,             V,      V,         T,     T,     T),
        ('int past str limit',  -10**5000,         V,           V,     V,             V,      V,         T,     T,     T),
        ('float',               2.5,               2.5,         T,     T,             T,      T,         T,     T,     T),
        ('integral float',      2.0,               2.0,         T,     T,             T,      T,         T,     T,     T),
        ('largest float32',     FLOAT32_MAX,       FLOAT32_MAX, T,     T,             T,      T,         T,     T,     T),
        ('float past float32',  1e39,              V,           T,     T,             T,      T,         T,     T,     T),
        ('float below float32', -1e300,            V,           T,     T,             T,      T,         T,     T,     T),
        ('subnormal float32',   2.0**-149,         2.0**-149,   T,     T,             T,      T,         T,     T,     T),
        ('float too small',     1e-50,             V,           T,     T,             T,      T,         T,     T,     T),
        ('negative zero',       -0.0,              -0.0,        T,     T,             T,      T,         T,     T,     T),
        ('nan',                 NAN,               NAN,         T,     T,             T,      T,         T,     T,     T),
        ('inf',                 math.inf,          math.inf,    T,     T,             T,      T,         T,     T,     T),
        ('-inf',                -math.inf,         -math.inf,   T,     T,             T,      T,         T,     T,     T),
        ('Fraction',            F(5, 2),           2.5,         T,     T,             T,      T,         T,     T,     T),
        ('integral Fraction',   F(4),              4.0,         T,     T,             T,      T,         T,     T,     T),
        ('huge Fraction',       F(10**400),        V,           T,     T,             T,      T,         T,     T,     T),
        ('tiny Fraction',       F(1, 10**400),     V,           T,     T,             T,      T,         T,     T,     T),
        ('Fraction past float32', F(10**39, 2),    V,           T,     T,             T,      T,         T,     T,     T),
        ('Decimal',             D('2.5'),          2.5,         T,     T,             T,      T,         T,     T,     T),
        ('integral Decimal',    D(4),              4.0,         T,     T,             T,      T,         T,     T,     T),
        ('huge Decimal',        D('1e400'),        V,           T,     T,             T,      T,         T,     T,     T),
        ('Decimal past float32', D('-1e39'),       V,           T,     T,             T,      T,         T,     T,     T),
        ('tiny Decimal',        D('1e-400'),       V,           T,     T,             T,      T,         T,     T,     T),
        ('Decimal infinity',    D('-Infinity'),    -math.inf,   T,     T,             T,      T,         T,     T,     T),
        ('Decimal NaN',         D('NaN'),          NAN,         T,     T,             T,      T,         T,     T,     T),
        ('Decimal sNaN',        D('sNaN'),         NAN,         T,     T,             T,      T,         T,     T,     T),
        ('complex',             1j,                T,           T,     T,             T,      T,         T,     T,     T),
        ('True',                True,              T,           T,     T,             T,      T,         True,  True,  T),
        ('False',               False,             T,           T,     T,             T,      T,         False, False, T),
        ('None',                None,              T,           T,     T,             SKIP,   SKIP,      T,     T,     SKIP),
        ('name',                'warptile',        T,           T,     Var.WARPTILE,  T,      T,         T,     V,     b'warptile'),
        ('letter',              't',               T,           T,     V,             T,      T,         T,     True,  b't'),
        ('number as str',       '2',               T,           T,     V,             T,      T,         T,     V,     b'2'),
        ('str with NUL',        'warptile\0junk',  T,           T,     V,             T,      T,         T,     V,     V),
        ('letter with NUL',     'N\0',             T,           T,     V,             T,      T,         T,     V,     V),
        ('bytes',               b'warptile',       T,           T,     T,             T,      T,         T,     T,     b'warptile'),
        ('bytes with NUL',      b'a\0b',           T,           T,     T,             T,      T,         T,     T,     V),
        ('path',                pathlib.PurePosixPath('t/x'), T, T,    T,             T,      T,         T,     T,     b't/x'),
        ('path with NUL',       pathlib.PurePosixPath('a\0b'), T, T,   T,             T,      T,         T,     T,     V),
        ('list',                [2],               T,           T,     T,             T,      T,         T,     T,     T),
    ]
    if numpy is not None:
        rows += [
            ('numpy float32',   numpy.float32(2.5), 2.5,        T,     T,             T,      T,         T,     T,     T),
            ('numpy float64 past float32', numpy.float64(1e39), V, T,  T,             T,      T,         T,     T,     T),
            ('numpy float16',   numpy.float16(0.5), 0.5,        T,     T,             T,      T,         T,     T,     T),
            ('numpy float64 nan', numpy.float64('nan'), NAN,    T,     T,             T,      T,         T,     T,     T),
            ('numpy int64',     numpy.int64(2),    2.0,         2,     Var.COALESCED, 2,      2,         T,     T,     T),
            ('numpy int8',      numpy.int8(-3),    -3.0,        -3,    V,             V,      V,         T,     T,     T),
            ('numpy uint64 max', numpy.uint64(2**64 - 1), 2.0**64, V,  V,             V,      2**64 - 1, T,     T,     T),
            ('numpy bool',      numpy.True_,       T,           T,     T,             T,      T,         True,  True,  T),
            ('numpy complex',   numpy.complex64(1), T,          T,     T,             T,      T,         T,     T,     T),
            ('numpy 0-d array', numpy.array(2.5),  T,           T,     T,             T,      T,         T,     T,     T),
        ]
        if numpy.finfo(numpy.longdouble).max > numpy.longdouble('1e4000'):  # x86's 80-bit long double
            rows += [
                ('numpy longdouble past float64', numpy.longdouble('1e4000'), V, T, T, T, T, T, T, T),
                ('numpy longdouble below float64', numpy.longdouble('1e-4000'), V, T, T, T, T, T, T, T),
            ]
    return [(label, value, dict(zip(KINDS, expected))) for label, value, *expected in rows]


class ArgumentTable(unittest.TestCase):
    """Every public argument that reaches C, with every type a caller might
    pass: what C receives (checked to pass through ctypes unchanged), or the
    error raised, the same for every type; nothing reaches C after an error."""

    def product(self, module=False, function='gemm', **kwargs):
        """gemm or sgemm (the module's or a Handle's) on CUDA arrays with the
        GPU emulated: what gl_sgemm_ex got, and the stream it ran on."""
        a, b = FakeArray(2, 2, values=[[1, 2], [3, 4]]), FakeArray(2, 2, values=[[1, 0], [0, 1]])
        handle = self.reached = _SimulatedHandle(stream=0x10)
        saved = _api.default_handle
        with _SimulatedRuntime():
            _api.default_handle = lambda device=None: handle
            try:
                getattr(gemmladder if module else handle, function)(a, b, out=FakeArray(2, 2), **kwargs)
            finally:
                _api.default_handle = saved
        return dict(handle.products[-1], stream=handle.calls[-1])

    def recorded(self, call, index, converted=None):
        """Argument `index` of the one library function call() ends in."""
        with _RecordingLibrary() as lib:
            self.reached = lib
            call()
        self.assertEqual(len(lib.calls), 1, lib.calls)
        value = lib.calls[0][1][index]
        return converted(value) if converted else value

    def device(self, call):
        with _DeviceRecorder():
            try:
                call()
            except _Reached as reached:
                return reached.args[0]
        self.fail('did not reach the CUDA runtime')

    def arguments(self):
        """(argument, kind, what C got from a value); all public arguments but arrays."""
        plan_index = {'v': (1,), 'column_major': (2, bool), 'trans_a': (3, bool), 'trans_b': (4, bool),
                      'M': (5,), 'N': (6,), 'K': (7,), 'lda': (9,), 'ldb': (11,), 'ldc': (13,)}

        def plan(name, value):
            given = dict(M=4, N=5, K=6)
            given[name] = value
            return self.recorded(lambda: _UncreatedHandle().sgemm_plan(**given), *plan_index[name])

        def query(name, value):
            given = dict(v='warptile', M=4, N=5, K=6)
            given[name] = value
            return self.recorded(lambda: _UncreatedHandle().tuning_query(**given),
                                 {'v': 1, 'M': 2, 'N': 3, 'K': 4}[name])

        def set_stream(value):
            return self.recorded(lambda: setattr(_UncreatedHandle(), 'stream', value), 1, lambda s: s or 0)

        arguments = [
            ('gemm alpha', 'real', lambda x: self.product(module=True, alpha=x)['alpha']),
            ('gemm beta', 'real', lambda x: self.product(module=True, beta=x)['beta']),
            ('Handle.gemm alpha', 'real', lambda x: self.product(alpha=x)['alpha']),
            ('Handle.gemm beta', 'real', lambda x: self.product(beta=x)['beta']),
            ('gemm trans_a', 'trans', lambda x: self.product(module=True, trans_a=x)['trans_a']),
            ('Handle.gemm trans_b', 'trans', lambda x: self.product(trans_b=x)['trans_b']),
            ('gemm variant', 'variant', lambda x: self.product(module=True, variant=x)['variant']),
            ('sgemm variant', 'variant', lambda x: self.product(module=True, function='sgemm', variant=x)['variant']),
            ('Handle.sgemm variant', 'variant', lambda x: self.product(function='sgemm', variant=x)['variant']),
            ('gemm stream', 'stream', lambda x: self.product(module=True, stream=x)['stream']),
            ('Handle.sgemm stream', 'stream', lambda x: self.product(function='sgemm', stream=x)['stream']),
            ('Handle.stream =', 'stream', set_stream),
            ('variant', 'variant', gemmladder.variant),
            ('variant_name', 'variant', lambda x: gemmladder.variant(gemmladder.variant_name(x))),
            ('variant_configs', 'variant', lambda x: self.recorded(lambda: gemmladder.variant_configs(x), 0)),
            ('Handle.available', 'variant', lambda x: self.recorded(lambda: _UncreatedHandle().available(x), 1)),
            ('Handle.set_tiles v', 'variant',
             lambda x: self.recorded(lambda: _UncreatedHandle().set_tiles(x, None), 1)),
            ('Handle(device)', 'device', lambda x: self.device(lambda: gemmladder.Handle(x))),
            ('default_handle(device)', 'device', lambda x: self.device(lambda: gemmladder.default_handle(x))),
            ('tuning_check', 'path', lambda x: self.recorded(lambda: gemmladder.tuning_check(x), 0)),
            ('tuning_load', 'path', lambda x: self.recorded(lambda: gemmladder.tuning_load(x), 0)),
            ('Handle.sgemm_plan column_major', 'flag', lambda x: plan('column_major', x)),
        ]
        for name, kind in (('v', 'variant'), ('trans_a', 'trans'), ('trans_b', 'trans'), ('M', 'size'),
                           ('N', 'size'), ('K', 'size'), ('lda', 'size'), ('ldb', 'size'), ('ldc', 'size')):
            arguments.append(('Handle.sgemm_plan ' + name, kind, lambda x, name=name: plan(name, x)))
        for name, kind in (('v', 'variant'), ('M', 'size'), ('N', 'size'), ('K', 'size')):
            arguments.append(('Handle.tuning_query ' + name, kind, lambda x, name=name: query(name, x)))
        return arguments

    def test_every_argument_with_every_type(self):
        checked = 0
        for argument, kind, observe in self.arguments():
            for label, value, expected in argument_values():
                want = expected[kind]
                if want is SKIP or (label == 'None' and argument.split()[-1] in ('lda', 'ldb', 'ldc')):
                    continue  # None: the default (test_defaults)
                with self.subTest(argument=argument, value=label):
                    checked += 1
                    self.reached = None
                    if isinstance(want, type) and issubclass(want, Exception):
                        with self.assertRaises(want):
                            observe(value)
                        self.assertEqual(getattr(self.reached, 'calls', []), [])  # nothing reached C
                        continue
                    got = observe(value)
                    if isinstance(want, float) and math.isnan(want):
                        self.assertTrue(isinstance(got, float) and math.isnan(got), got)
                        continue
                    self.assertEqual(got, want)
                    self.assertEqual(type(got) is bool, type(want) is bool, got)
                    if isinstance(want, float):
                        self.assertIs(type(got), float)
                        self.assertEqual(math.copysign(1, got), math.copysign(1, want))
        self.assertGreater(checked, 2000)

    def test_defaults(self):
        with _RecordingLibrary() as lib:
            gemmladder.tuning_load(None)  # None removes the override
            _UncreatedHandle().stream = None
            _UncreatedHandle().sgemm_plan(4, 5, 6, lda=None, ldb=None, ldc=None)
            _UncreatedHandle().sgemm_plan(4, 5, 6, trans_a='T', column_major=True)
            _UncreatedHandle().sgemm_plan(4, 5, 6, trans_a='N', trans_b='n')  # 'N' is not transposed
        self.assertIsNone(lib.calls[0][1][0])
        self.assertIsNone(lib.calls[1][1][1])
        self.assertEqual([lib.calls[2][1][i] for i in (9, 11, 13)], [6, 5, 5])
        self.assertEqual([lib.calls[3][1][i] for i in (2, 3, 9, 11, 13)], [1, 1, 6, 6, 4])
        self.assertEqual([lib.calls[4][1][i] for i in (2, 3, 4, 9, 11, 13)], [0, 0, 0, 6, 5, 5])
        with _RecordingLibrary() as lib, self.assertRaises(TypeError):
            gemmladder.tuning_check(None)
        self.assertEqual(lib.calls, [])
        self.assertIsNone(self.device(lambda: gemmladder.Handle(None)))

    def test_messages_name_the_argument_and_the_value(self):
        a, b = FakeArray(2, 2), FakeArray(2, 2)
        for kwargs, error, pattern in (
                ({'alpha': 10**400}, ValueError, r'^alpha = <a 401-digit int> does not fit a float32'),
                ({'alpha': -10**5000}, ValueError, r'^alpha = <a 5001-digit int> does not fit a float32'),
                ({'beta': F(10**400), 'out': FakeArray(2, 2)}, ValueError, r'^beta = Fraction\(1000.* does not fit'),
                ({'alpha': D('1e400')}, ValueError, r"^alpha = Decimal\('1E\+400'\) does not fit a float32"),
                ({'alpha': D('1e-400')}, ValueError, r"^alpha = Decimal\('1E-400'\) is too small for a float32"),
                ({'alpha': True}, TypeError, r'^alpha must be a real number, not a bool'),
                ({'alpha': 1j}, TypeError, r'^alpha must be a real number .* got complex'),
                ({'variant': 'warptile\0junk'}, ValueError, r"variant name 'warptile\\x00junk' contains a NUL"),
                ({'variant': 10**400}, ValueError, r'^unknown variant id <a 401-digit int>'),
                ({'stream': 2**64}, ValueError, r'^stream 18446744073709551616 is not a cudaStream_t'),
                ({'trans_a': 'N\0'}, ValueError, r"^trans_a must be True, False, 'N' or 'T', got 'N\\x00'")):
            with self.subTest(pattern=pattern), _NoGpu():
                with self.assertRaisesRegex(error, pattern):
                    gemmladder.gemm(a, b, **kwargs)
        with self.assertRaisesRegex(ValueError, r"^path 'a\\x00b' contains a NUL character"):
            gemmladder.tuning_check('a\0b')
        with self.assertRaisesRegex(ValueError, r'^device <a 401-digit int> is not a CUDA device ordinal'):
            gemmladder.Handle(10**400)

    def test_tiles_fields_reach_c_unchanged(self):
        good = gemmladder.Tiles(bm=128, bn=128, bk=16, tm=8, tn=8, arch='sm_90', source='x' * 63)
        with _RecordingLibrary() as lib:
            _UncreatedHandle().set_tiles('warptile', good)
        self.assertEqual(len(lib.calls), 1)
        for change, error in (({'bm': 2**32 + 128}, ValueError), ({'bm': 128.0}, TypeError),
                              ({'bm': True}, TypeError), ({'origin': 2**31}, ValueError),
                              ({'arch': 'sm\0_90'}, ValueError), ({'source': 'x' * 64}, ValueError),
                              ({'size_class': b'small'}, TypeError)):
            with self.subTest(change=change), _RecordingLibrary() as lib:
                with self.assertRaises(error):
                    _UncreatedHandle().set_tiles('warptile', dataclasses.replace(good, **change))
                self.assertEqual(lib.calls, [])
        with _RecordingLibrary() as lib, self.assertRaisesRegex(TypeError, 'tiles must be a gemmladder.Tiles'):
            _UncreatedHandle().set_tiles('warptile', {'bm': 128})
        self.assertEqual(lib.calls, [])

    def test_error_takes_any_status(self):
        _library.load()  # the status names come from the library once it is loaded
        for status in (2**32, -2**40, 10**400):
            e = gemmladder.Error(status, 'message')
            self.assertEqual(e.status_name, 'unknown status')
            self.assertEqual(str(e), 'unknown status: message')


def element_indices(x):
    """The buffer indices of a FakeArray's elements."""
    return {x._index((i, j)) for i in range(x.shape[0]) for j in range(x.shape[1])}


class Overlap(unittest.TestCase):
    """out must not share an element with A or B (exact element overlap, as
    numpy.shares_memory's exact answer): views that interleave without
    sharing one are accepted, views sharing one (before, after, inside)
    refused with a ValueError naming both."""

    def cases(self, base):
        """(case, view, out, shared): views of one 16 x 16 buffer, the same
        shape, in either role."""
        def v(rows, cols, strides, offset):
            return FakeArray(rows, cols, strides=strides, base=base, offset=offset)
        return [
            ('left and right halves', v(4, 4, (8, 1), 0), v(4, 4, (8, 1), 4), False),
            ('halves sharing a column', v(4, 4, (8, 1), 0), v(4, 4, (8, 1), 3), True),
            ('top and bottom', v(4, 4, (8, 1), 0), v(4, 4, (8, 1), 32), False),
            ("out's last element is the view's first", v(4, 4, (4, 1), 20), v(4, 4, (4, 1), 5), True),
            ('out ends where the view starts', v(4, 4, (4, 1), 20), v(4, 4, (4, 1), 4), False),
            ("out's first element is the view's last", v(4, 4, (4, 1), 0), v(4, 4, (4, 1), 15), True),
            ('out starts after the view ends', v(4, 4, (4, 1), 0), v(4, 4, (4, 1), 16), False),
            ('one element of out inside the view', v(4, 4, (8, 1), 0), v(4, 4, (64, 1), 19), True),
            ("out in the view's padding", v(4, 4, (8, 1), 0), v(4, 4, (64, 1), 20), False),
            ('column-major beside row-major', v(4, 4, (1, 8), 0), v(4, 4, (8, 1), 4), False),
            ('column-major meeting row-major', v(4, 4, (1, 8), 0), v(4, 4, (8, 1), 3), True),
            ('column-major views apart', v(4, 4, (1, 16), 0), v(4, 4, (1, 16), 4), False),
            ('column-major views one row in', v(4, 4, (1, 16), 0), v(4, 4, (1, 16), 3), True),
            ('ld 16 and ld 8 interleaved', v(4, 2, (16, 1), 0), v(4, 2, (8, 1), 2), False),
            ('ld 16 and ld 8 sharing', v(4, 2, (16, 1), 0), v(4, 2, (8, 1), 0), True),
            ('ld 16 and ld 12 sharing one row', v(4, 2, (16, 1), 0), v(4, 2, (12, 1), 4), True),
            ('ld 8 and ld 24 interleaved', v(4, 3, (8, 1), 0), v(4, 3, (24, 1), 3), False),
            ('ld 8 and ld 24 sharing one element', v(4, 3, (8, 1), 0), v(4, 3, (24, 1), 26), True),
            ('out empty inside the view', v(4, 4, (8, 1), 0), v(4, 0, (8, 1), 9), False),
        ]

    def test_table(self):
        rng = support.rng(17)
        for device in (True, False):
            base = FakeArray(16, 16, device=device)
            for case, view, out, shared in self.cases(base):
                self.assertEqual(bool(element_indices(view) & element_indices(out)), shared, case)
                for role in ('A', 'B'):
                    M, N = out.shape
                    if role == 'B' and view.shape[1] != N:
                        continue
                    with self.subTest(case=case, device=device, operand=role):
                        view.device = out.device = device
                        for i in range(len(base.buffer)):
                            base.buffer[i] = rng.uniform(-1, 1)
                        if role == 'A':
                            other = FakeArray(view.shape[1], N, device=device,
                                              values=support.random_matrix(view.shape[1], N, rng))
                            a, b = view, other
                        else:
                            other = FakeArray(M, view.shape[0], device=device,
                                              values=support.random_matrix(M, view.shape[0], rng))
                            a, b = other, view
                        if shared:
                            with _NoGpu(), self.assertRaisesRegex(
                                    ValueError, '^out overlaps %s: at least one element of out is also one of %s '
                                    % (role, role)):
                                gemmladder.gemm(a, b, out=out)
                            continue
                        want = support.reference(a.tolist(), b.tolist())
                        with _SimulatedRuntime():
                            self.assertIs(_SimulatedHandle().gemm(a, b, out=out), out)
                        self.assertLess(support.relative_error(out.tolist(), want), 1e-6)

    def test_against_every_element(self):
        """Random views of one buffer (any pitch, either order, any offset,
        reversed, broadcast): the answer is the element sets'."""
        rng = random.Random(31)
        base = FakeArray(1, 1024, device=False)
        unit = lambda: rng.choice([1, -1])
        for trial in range(5000):
            views = []
            for _ in range(2):
                rows, cols = rng.randrange(0, 7), rng.randrange(0, 7)
                pitch = rng.choice([rng.randrange(0, 20), cols, cols + 1, 2 * cols, rows, rows + 1])
                strides = (pitch * unit(), unit()) if rng.random() < 0.5 else (unit(), pitch * unit())
                if numpy is not None and rng.random() < 0.2:  # neither rows nor columns contiguous
                    strides = (rng.randrange(-8, 9), rng.randrange(-8, 9))
                views.append(FakeArray(rows, cols, strides=strides, base=base, offset=300 + rng.randrange(0, 60),
                                       device=False))
            x, y = views
            with self.subTest(trial=trial, x=(x.shape, x.strides, x.offset), y=(y.shape, y.strides, y.offset)):
                self.assertEqual(_matrix.share(_matrix.Matrix(x, 'x'), _matrix.Matrix(y, 'y')),
                                 bool(element_indices(x) & element_indices(y)))

    def test_large_views_are_exact_and_cheap(self):
        # Views of 2^31 - 1 rows with different leading dimensions: decided
        # by the lattice, in a few steps, not row by row.
        def device(rows, cols, ld, offset):
            return _matrix.Matrix(FakeArray(1, 1, extra={'shape': (rows, cols), 'strides': (4 * ld, 4),
                                                         'data': (2**40 + 4 * offset, False)}), 'x')
        big = 2**31 - 1
        x = device(big, 3, 2**20, 0)
        cases = ((device(big, 5, 2**20 + 7, 3), True),         # meet where the ld's drift apart by 2^20 - 3
                 (device(big, 5, 2**20, 3), False),            # the same ld, beside each other
                 (device(big // 2, 2**19, 2**21, 3), False),   # x's ld divides its: always beside
                 (device(big // 2, 2**19, 2**21 + 1, 3), True),
                 (device(3, 3, 2**40, 2**20 * 12345 + 3), False),
                 (device(3, 3, 2**40, 2**20 * 12345 + 2), True))
        for other, shared in cases:
            self.assertEqual(_matrix.share(x, other), shared, other.memory)
            self.assertEqual(_matrix.share(other, x), shared, other.memory)

    @unittest.skipIf(numpy is None, 'numpy is not installed')
    def test_numpy_views(self):
        y = numpy.zeros((8, 8), numpy.float32)
        b = numpy.ones((4, 4), numpy.float32)
        with _SimulatedRuntime():
            _SimulatedHandle().gemm(y[:4, :4], b, out=y[:4, 4:])                     # halves
            _SimulatedHandle().gemm(y[::2, :4], b, out=y[1::2, 4:])                  # interleaved rows
            _SimulatedHandle().gemm(y[::2, ::2], b, out=y[1::2, ::2])                # neither contiguous
            _SimulatedHandle().gemm(b, y[::2, 1::2], out=y[::2, ::2])                # as B
        one = numpy.lib.stride_tricks.as_strided(y.ravel()[18:], shape=(4, 1), strides=(44, 4))  # y[2, 2] and 3 not in A
        for a, out in ((y[:4, :4], y[:4, 3:7]), (y[:4, :4], y[3:7, :4]), (y[::2, ::2], y[::2, 2::2][:, :3]),
                       (y.T[:4, :4], y[:4, :4]), (y[::2, ::2], one)):
            with self.subTest(a=a.strides, out=out.strides), _NoGpu():
                with self.assertRaisesRegex(ValueError, '^out overlaps A'):
                    gemmladder.gemm(a, b[:, :out.shape[1]], out=out)
        # Floats at byte offsets that are not multiples of 4 share bytes, not whole elements.
        raw = numpy.zeros(160, numpy.uint8)
        def floats(offset, count):
            return numpy.frombuffer(raw.data, numpy.float32, count, offset=offset).reshape(1, count)
        for offset, shared in ((14, True), (16, False), (2, True), (18, False)):
            a, out = floats(offset, 4), floats(0, 4)
            self.assertEqual(numpy.shares_memory(a, out), shared)
            with self.subTest(offset=offset):
                if shared:
                    with _NoGpu(), self.assertRaisesRegex(ValueError, '^out overlaps A'):
                        gemmladder.gemm(a, b, out=out)
                else:
                    with _SimulatedRuntime():
                        _SimulatedHandle().gemm(a, b, out=out)
        # numpy's exact answer, for random views at any byte offset and strides.
        pool = numpy.zeros(8192, numpy.uint8)
        rng = numpy.random.default_rng(4)
        for trial in range(3000):
            views = []
            for _ in range(2):
                rows, cols = (int(n) for n in rng.integers(1, 6, 2))
                strides = [4 * int(s) for s in rng.integers(-10, 11, 2)]
                if rng.random() < 0.6:
                    strides[int(rng.integers(0, 2))] = 4 * int(rng.choice([1, -1]))
                offset = 4000 + int(rng.integers(0, 60)) * 4 + (int(rng.integers(1, 4)) if rng.random() < 0.3 else 0)
                start = numpy.frombuffer(pool.data, numpy.float32, 1, offset=offset)
                views.append(numpy.lib.stride_tricks.as_strided(start, shape=(rows, cols), strides=strides))
            x, y = views
            with self.subTest(trial=trial, x=(x.shape, x.strides), y=(y.shape, y.strides)):
                self.assertEqual(_matrix.share(_matrix.Matrix(x, 'x'), _matrix.Matrix(y, 'y')),
                                 numpy.shares_memory(x, y, max_work=None))


class Documentation(unittest.TestCase):
    """Every public function and method says what it takes, returns and raises."""

    def functions(self):
        for name in gemmladder.__all__:
            obj = getattr(gemmladder, name)
            if inspect.isfunction(obj):
                yield name, obj
            elif inspect.isclass(obj) and obj.__module__.startswith('gemmladder'):
                for attribute, member in vars(obj).items():
                    public = not attribute.startswith('_') or attribute == '__init__'
                    generated = attribute == '__init__' and dataclasses.is_dataclass(obj)
                    if inspect.isfunction(member) and public and not generated:
                        yield '%s.%s' % (name, attribute), member

    def test_docstrings(self):
        checked = 0
        for name, function in self.functions():
            with self.subTest(name):
                doc = inspect.getdoc(function) or ''
                parameters = [p for p in inspect.signature(function).parameters if p != 'self']
                sections = ('Args:', 'Raises:') if function.__name__ == '__init__' else ('Args:', 'Returns:', 'Raises:')
                for section in sections[0 if parameters else 1:]:
                    self.assertIn(section, doc)
                described = doc.split('Args:')[-1].split('Returns:')[0].split('Raises:')[0]
                for parameter in parameters:
                    self.assertRegex(described, r'(^|\n) *([\w, ]*\b)?%s\b[\w, ]*:' % parameter)
                checked += 1
        self.assertGreaterEqual(checked, 23)
        for name in gemmladder.__all__:
            obj = getattr(gemmladder, name)
            if inspect.isclass(obj):
                self.assertTrue(inspect.getdoc(obj), name)
        for name in ('closed', 'device', 'stream'):
            self.assertTrue(inspect.getdoc(getattr(gemmladder.Handle, name)), name)

    def test_types(self):
        package = os.path.dirname(gemmladder.__file__)
        self.assertTrue(os.path.isfile(os.path.join(package, 'py.typed')))
        for name, function in self.functions():
            with self.subTest(name):
                signature = inspect.signature(function)
                if function.__name__ != '__init__':
                    self.assertIsNot(signature.return_annotation, inspect.Signature.empty)
                for p in signature.parameters.values():
                    if p.name != 'self':
                        self.assertIsNot(p.annotation, inspect.Parameter.empty, p.name)


# ---- batches (issue 45): 3-D arrays, matmul's broadcasting, gl_sgemm_strided_batched ----
def batch_view(shape, strides, device=True, values=None, readonly=False, offset=0, base=None):
    """A 3-D float32 array over a FakeArray's memory, through the interface
    the FakeArray names (device: __cuda_array_interface__), element strides."""
    span = 1 + sum((n - 1) * abs(s) for n, s in zip(shape, strides)) if all(shape) else 1
    holder = base or FakeArray(1, span + offset, device=device)
    array = FakeArray(1, 1, device=device, base=holder, offset=offset, readonly=readonly,
                      extra={'shape': shape, 'strides': tuple(4 * s for s in strides)})
    array.holder = holder
    if values is not None:
        for i, matrix in enumerate(values):
            for r, row in enumerate(matrix):
                for c, value in enumerate(row):
                    holder.buffer[array.offset + i * strides[0] + r * strides[1] + c * strides[2]] = value
    return array


def batch_values(array):
    """A batch_view's elements as lists (batch of rows)."""
    n, r, c = array.shape if len(array.extra.get('shape', ())) != 3 else array.extra['shape']
    s = [x // 4 for x in array.extra['strides']]
    return [[[array.buffer[array.offset + i * s[0] + j * s[1] + k * s[2]] for k in range(c)]
             for j in range(r)] for i in range(n)]


class _SimulatedBatchHandle(_SimulatedHandle):
    """_SimulatedHandle with gl_sgemm_strided_batched emulated product by
    product (each as gl_sgemm_ex, at A + i strideA, ...), recording its
    arguments after checking each reaches C unchanged."""

    def _call_batched(self, plan, number, a_ptr, a_ld, a_stride, b_ptr, b_ld, b_stride, c_ptr, c_ld,
                      c_stride, stream):
        arguments = (self._ptr, number, 0 if plan.layout == _matrix.ROW else 1, int(plan.a.transpose),
                     int(plan.b.transpose), plan.M, plan.N, plan.K, plan.alpha, a_ptr or None, a_ld, a_stride,
                     b_ptr or None, b_ld, b_stride, plan.beta, c_ptr or None, c_ld, c_stride, plan.batch)
        argtypes = _library._OPTIONAL['gl_sgemm_strided_batched'][1]
        assert len(argtypes) == len(arguments)
        for ctype, value in zip(argtypes, arguments):
            c_value(ctype, value)
        assert min(a_stride, b_stride, c_stride, plan.batch) >= 0, arguments
        self.calls.append(self._stream if stream is None else stream)
        self.products.append({'batch': plan.batch, 'strides': (a_stride, b_stride, c_stride),
                              'lds': (a_ld, b_ld, c_ld), 'trans_a': plan.a.transpose,
                              'trans_b': plan.b.transpose, 'layout': plan.layout})
        for i in range(plan.batch):
            emulate_sgemm_ex(0 if plan.layout == _matrix.ROW else 1, plan.a.transpose, plan.b.transpose,
                             plan.M, plan.N, plan.K, plan.alpha, (a_ptr or 0) + 4 * i * a_stride, a_ld,
                             (b_ptr or 0) + 4 * i * b_stride, b_ld, plan.beta, c_ptr + 4 * i * c_stride, c_ld)

    def _call(self, *arguments):
        super()._call(*arguments)
        self.products[-1]['batch'] = None


class _SimulatedPointerHandle(_SimulatedHandle):
    """_SimulatedHandle with gl_sgemm_batched emulated: the arrays of
    pointers read from the (simulated) device buffer they were copied to,
    each product as gl_sgemm_ex, after every argument is checked to reach C
    unchanged."""

    def _call_pointers(self, plan, number, a_array, b_array, c_array, lds, count, stream):
        arguments = (self._ptr, number, 0 if plan.layout == _matrix.ROW else 1, int(plan.a.transpose),
                     int(plan.b.transpose), plan.M, plan.N, plan.K, plan.alpha, 8, lds[0], 16, lds[1],
                     plan.beta, 24, lds[2], count)
        argtypes = _library._OPTIONAL['gl_sgemm_batched'][1]
        assert len(argtypes) == len(arguments)
        for ctype, value in zip(argtypes, arguments):
            c_value(ctype, value)
        self.calls.append(self._stream if stream is None else stream)
        self.products.append({'count': count, 'lds': tuple(lds), 'entries': (list(a_array), list(b_array),
                                                                            list(c_array))})
        for a, b, c in zip(a_array, b_array, c_array):
            emulate_sgemm_ex(0 if plan.layout == _matrix.ROW else 1, plan.a.transpose, plan.b.transpose,
                             plan.M, plan.N, plan.K, plan.alpha, a, lds[0], b, lds[1], plan.beta, c, lds[2])


@unittest.skipIf(numpy is None, 'numpy is not installed')
class PointerBatches(unittest.TestCase):
    """gemm_batched (gl_sgemm_batched) with the GPU emulated: lists of host or
    CUDA arrays, repeated matrices, and the arguments it refuses."""

    def setUp(self):
        self.rng = numpy.random.default_rng(451)

    def uniform(self, *shape):
        return self.rng.uniform(-1, 1, shape).astype(numpy.float32)

    def test_host_lists_against_numpy(self):
        w = self.uniform(5, 7)
        xs = [self.uniform(7, 3) for _ in range(4)]
        for trans_a, a_list in ((False, [w, self.uniform(5, 7), w, w]),
                                (True, [w.T.copy(), self.uniform(7, 5), w.T.copy(), w.T.copy()])):
            with self.subTest(trans_a=trans_a), _SimulatedRuntime():
                h = _SimulatedPointerHandle(stream=0x55)
                outs = h.gemm_batched(a_list, xs, alpha=0.5, trans_a=trans_a)
                self.assertEqual(len(outs), 4)
                for a, x, c in zip(a_list, xs, outs):
                    want = 0.5 * (a.T if trans_a else a).astype(numpy.float64) @ x.astype(numpy.float64)
                    self.assertIsInstance(c, numpy.ndarray)
                    self.assertLess(numpy.abs(c - want).max(), 1e-5)
                self.assertEqual(h.calls, [0x55])
                entries = h.products[0]['entries']
                if not trans_a:  # w, met three times, is on the GPU once (w.T.copy() are new arrays)
                    self.assertEqual(entries[0][0], entries[0][2])
                    self.assertEqual(entries[0][0], entries[0][3])
                self.assertEqual(len(set(entries[2])), 4)  # each C its own

    def test_host_beta_and_out(self):
        a, b = [self.uniform(3, 2) for _ in range(2)], [self.uniform(2, 4) for _ in range(2)]
        outs = [self.uniform(3, 4) for _ in range(2)]
        before = [c.astype(numpy.float64) for c in outs]
        with _SimulatedRuntime():
            got = _SimulatedPointerHandle().gemm_batched(a, b, beta=2.0, out=outs)
        self.assertIs(got[0], outs[0])
        for x, y, c0, c in zip(a, b, before, outs):
            self.assertLess(numpy.abs(c - (x.astype(numpy.float64) @ y + 2.0 * c0)).max(), 1e-5)

    def test_device_arrays_in_place(self):
        a = [FakeArray(2, 3, values=[[1, 2, 3], [4, 5, 6]]), FakeArray(2, 3, values=[[0, 1, 0], [1, 0, 0]])]
        b = FakeArray(3, 2, values=[[1, 0], [0, 1], [1, 1]])
        c = [FakeArray(2, 2), FakeArray(2, 2)]
        with _SimulatedRuntime():
            h = _SimulatedPointerHandle()
            got = h.gemm_batched(a, [b, b], out=c)
        self.assertEqual(got, c)
        self.assertEqual(c[0].tolist(), [[4, 5], [10, 11]])
        self.assertEqual(c[1].tolist(), [[0, 1], [1, 0]])
        self.assertEqual(h.products[0]['entries'], ([x.address for x in a], [b.address] * 2,
                                                    [x.address for x in c]))
        self.assertEqual(h.products[0]['lds'], (3, 2, 2))

    def test_refused_before_the_library(self):
        h = _SimulatedPointerHandle()
        a, b = self.uniform(2, 3), self.uniform(3, 4)
        cases = [
            ((a, [b]), TypeError, 'As must be a list or tuple of 2-D arrays, got numpy.ndarray'),
            (([a, a], [b]), ValueError, 'As holds 2, Bs holds 1: one matrix of each for every product'),
            (([a, a], [b, self.uniform(4, 4)]), ValueError, 'product 1: shapes do not match'),
            (([a, self.uniform(2, 5)], [b, self.uniform(5, 4)]), ValueError,
             'product 1 is not stored as product 0 is'),
            (([a, FakeArray(2, 3)], [b, b]), TypeError, 'product 1: A, B must all be numpy arrays'),
            # stored the other way: its own transpose to the library, unlike product 0
            (([a, numpy.asfortranarray(a)], [b, b]), ValueError, 'product 1 is not stored as product 0 is'),
        ]
        for args, error, message in cases:
            with self.subTest(message=message), self.assertRaisesRegex(error, re.escape(message)):
                h.gemm_batched(*args)
        with self.assertRaisesRegex(ValueError, re.escape('out holds 1')):
            h.gemm_batched([a, a], [b, b], out=[self.uniform(2, 4)])


def brute_products_share(rows, cols, rs, cs, batch, bs):
    cells = [{i * bs + r * rs + c * cs for r in range(rows) for c in range(cols)} for i in range(batch)]
    return any(cells[i] & cells[j] for i in range(batch) for j in range(i + 1, batch))


class BatchMapping(unittest.TestCase):
    """The pure functions that map shapes and strides onto the batched call."""

    def test_broadcast_batch(self):
        b = _matrix.broadcast_batch
        for batch_a, batch_b, want in ((None, None, None), (None, 5, 5), (5, None, 5), (1, 5, 5), (5, 1, 5),
                                       (5, 5, 5), (1, 1, 1), (None, 1, 1), (0, 0, 0), (0, 1, 0), (None, 0, 0)):
            with self.subTest(a=batch_a, b=batch_b):
                self.assertEqual(b(batch_a, batch_b), want)
        for batch_a, batch_b in ((2, 3), (0, 2), (4, 2)):
            with self.subTest(a=batch_a, b=batch_b), self.assertRaisesRegex(
                    ValueError, 'batch sizes do not match: A holds %d matrices and B %d' % (batch_a, batch_b)):
                b(batch_a, batch_b)
        with self.assertRaisesRegex(ValueError, 'a holds 2 matrices and b 3'):
            b(2, 3, ('a', 'b'))

    def test_batch_arguments(self):
        f = _matrix.batch_arguments
        self.assertEqual(f(None, 0, None, 0), (1, 0, 0))            # one 2-D product
        self.assertEqual(f(4, 20, None, 0), (4, 20, 0))             # a 2-D B serves every product
        self.assertEqual(f(None, 0, 4, 30), (4, 0, 30))
        self.assertEqual(f(1, 0, 4, 30), (4, 0, 30))                # a batch of 1 too
        self.assertEqual(f(4, 0, 4, 30), (4, 0, 30))                # a stride of 0 (broadcast_to, expand)
        self.assertEqual(f(4, 20, 4, 30), (4, 20, 30))
        self.assertEqual(f(4, 7, 4, 30), (4, 7, 30))                # strides as given, any size
        self.assertEqual(f(1, 0, 1, 0), (1, 0, 0))
        self.assertEqual(f(0, 20, None, 0), (0, 0, 0))
        self.assertEqual(_matrix.operand_stride(1, 3, 99), 0)

    def test_products_share_against_every_element(self):
        rng = random.Random(45)
        checked = 0
        for rows in (1, 2, 3):
            for cols in (1, 2, 4):
                for rs, cs in ((cols, 1), (1, rows), (cols + 2, 1), (1, rows + 3), (2 * cols, 1)):
                    for batch in (1, 2, 3, 5):
                        for bs in sorted({0, 1, 2, cols, rows * cols, rows * cols - 1, rs, rng.randrange(1, 30)}):
                            with self.subTest(rows=rows, cols=cols, strides=(rs, cs), batch=batch, bs=bs):
                                self.assertEqual(_matrix.products_share(rows, cols, rs, cs, batch, bs),
                                                 brute_products_share(rows, cols, rs, cs, batch, bs))
                                checked += 1
        self.assertGreater(checked, 1000)
        # Side by side in one row-major matrix (ldc = batch * N, strideC = N): apart.
        self.assertFalse(_matrix.products_share(64, 8, 8 * 1000, 1, 1000, 8))
        self.assertTrue(_matrix.products_share(2, 2, 2, 1, 2, 0))
        self.assertFalse(_matrix.products_share(0, 2, 2, 1, 5, 0))  # no elements
        self.assertTrue(_matrix.products_share(3, 3, 9, 3, 2, 1))   # no runs: counted as sharing
        # Past the limit of pairs to look at: counted as sharing.
        self.assertTrue(_matrix.products_share(1000, 1, 1000, 1, 1000, 1, limit=50))
        self.assertFalse(_matrix.products_share(1000, 1, 1000, 1, 1000, 1, limit=1000))


@unittest.skipIf(numpy is None, 'numpy is not installed')
class BatchPlans(unittest.TestCase):
    """numpy (host) and CUDA-array (device) batches as BatchPlan maps them:
    strides passed without copies where the matrices allow, and the result
    of the emulated call against numpy.matmul in float64."""

    def setUp(self):
        self.rng = numpy.random.default_rng(45)

    def uniform(self, *shape):
        return self.rng.uniform(-1, 1, shape).astype(numpy.float32)

    def test_host_plans_read_in_place(self):
        x = self.uniform(6, 5, 7)
        cases = [
            # (A, B, batch, strideA, strideB, countA, countB)
            (x, self.uniform(6, 7, 3), 6, 35, 21, 6, 6),
            (x, self.uniform(7, 3), 6, 35, 0, 6, 1),                        # 2-D B broadcast
            (self.uniform(5, 4), self.uniform(3, 4, 2), 3, 0, 8, 1, 3),     # 2-D A broadcast
            (x[:1], self.uniform(4, 7, 2), 4, 0, 14, 1, 4),                 # a batch of 1
            (numpy.broadcast_to(x[0], (6, 5, 7)), self.uniform(7, 2), 6, 0, 0, 1, 1),  # stride 0
            (x.transpose(0, 2, 1), self.uniform(6, 5, 2), 6, 35, 10, 6, 6),  # column-major matrices
            (x[::2], self.uniform(3, 7, 2), 3, 70, 14, 3, 3),               # every other matrix
            (x[:, :, :4], self.uniform(6, 4, 2), 6, 35, 8, 6, 6),           # padded rows
            (x[::-1], self.uniform(6, 7, 2), 6, -35, 14, 6, 6),             # backwards: host only
        ]
        for a, b, batch, sa, sb, ca, cb in cases:
            with self.subTest(a=(a.shape, a.strides), b=(b.shape, b.strides)):
                plan = _matrix.plan(a, b, None, 1.0, 0.0, False, False)
                self.assertIsInstance(plan, _matrix.BatchPlan)
                self.assertEqual(plan.batch, batch)
                self.assertEqual((plan.a.stride, plan.b.stride), (sa, sb))
                self.assertEqual((plan.a.count, plan.b.count), (ca, cb))
                self.assertIsNone(plan.a.matrix.copy)
                self.assertIsNone(plan.b.matrix.copy)
                self.assertEqual(plan.shape, numpy.matmul(a, b).shape)

    def test_two_d_stays_a_plan(self):
        plan = _matrix.plan(self.uniform(3, 4), self.uniform(4, 5), None, 1.0, 0.0, False, False)
        self.assertIs(type(plan), _matrix.Plan)
        self.assertIsNone(plan.batch)

    def test_host_copies_where_strides_do_not_allow(self):
        x = self.uniform(4, 6, 10)
        plan = _matrix.plan(x[:, :, ::2], self.uniform(5, 3), None, 1.0, 0.0, False, False)
        self.assertIsNotNone(plan.a.matrix.copy)
        self.assertEqual((plan.a.stride, plan.a.ld, plan.a.count), (30, 5, 4))

    def check_call(self, handle_call, want, got=None):
        with _SimulatedRuntime():
            h = _SimulatedBatchHandle()
            result = handle_call(h)
        got = result if got is None else got
        self.assertEqual(numpy.asarray(got).shape, want.shape)
        error = numpy.linalg.norm(numpy.asarray(got, numpy.float64) - want) / max(numpy.linalg.norm(want), 1e-300)
        self.assertLess(error, 1e-6)
        return h, result

    def test_host_batches_against_numpy_matmul(self):
        x, y = self.uniform(6, 5, 7), self.uniform(6, 7, 3)
        base = self.uniform(8, 9, 12)
        cases = [
            (x, y), (x, y[0]), (x[0], y), (x[:1], y), (x, y[:1]), (x.transpose(0, 2, 1).copy().transpose(0, 2, 1), y),
            (numpy.broadcast_to(x[:1], x.shape), y), (x[::-1], y[::2].repeat(2, axis=0)),
            (base[:6, :5, ::2], self.uniform(6, 6, 3)),                # strided rows and columns: a copy
            (x[:, :0, :], y), (x[:0], y[:0]), (x[:, :, :0], y[:, :0, :]),
        ]
        for a, b in cases:
            with self.subTest(a=(a.shape, a.strides), b=(b.shape, b.strides)):
                want = numpy.matmul(a.astype(numpy.float64), b.astype(numpy.float64))
                h, c = self.check_call(lambda h: h.sgemm(a, b), want)
                self.assertIsInstance(c, numpy.ndarray)
                self.assertEqual(c.dtype, numpy.float32)

    def test_host_out_alpha_beta_transposes(self):
        a, b = self.uniform(4, 6, 5), self.uniform(4, 3, 6)
        for out in (self.uniform(4, 5, 3), self.uniform(4, 3, 5).transpose(0, 2, 1),
                    self.uniform(4, 5, 8)[:, :, 2:5], self.uniform(8, 5, 3)[::2],
                    self.uniform(4, 5, 9)[:, :, ::3]):
            with self.subTest(out=(out.shape, out.strides)):
                c0 = out.astype(numpy.float64)
                want = 0.5 * numpy.matmul(a.transpose(0, 2, 1).astype(numpy.float64), b.transpose(0, 2, 1)) - 2 * c0
                h, got = self.check_call(lambda h: h.gemm(a, b, trans_a=True, trans_b='T', alpha=0.5, beta=-2.0,
                                                          out=out), want, out)
                self.assertIs(got, out)

    def test_host_copies_each_operand_once(self):
        a, b = self.uniform(5, 7), self.uniform(300, 7, 3)
        with _SimulatedRuntime() as rt:
            copies = []
            saved = _cudart.copy_2d
            _cudart.copy_2d = lambda *arguments: (copies.append(arguments[5]), saved(*arguments))
            try:
                h = _SimulatedBatchHandle(stream=0x77)
                c = h.sgemm(a, b)
            finally:
                _cudart.copy_2d = saved
        # A once (5 rows), B's 300 matrices in one 2-D copy (2100 rows), C back in one.
        self.assertEqual(copies, [5, 2100, 1500])
        self.assertEqual(h.products[-1]['strides'], (0, 21, 15))
        self.assertEqual((h.calls, rt.syncs), ([0x77], [0x77]))
        want = numpy.matmul(a.astype(numpy.float64), b)
        self.assertLess(numpy.abs(c - want).max(), 1e-5)

    def test_device_batches_in_place(self):
        rng = support.rng(45)
        n, M, K, N = 3, 4, 5, 2
        A = [support.random_matrix(M, K, rng) for _ in range(n)]
        B = [support.random_matrix(K, N, rng) for _ in range(n)]
        layouts = {
            'C': lambda r, c: (r * c, c, 1), 'F': lambda r, c: (r * c, 1, r),
            'padded': lambda r, c: ((r + 1) * (c + 3), c + 3, 1), 'gaps': lambda r, c: (r * c + 7, 1, r),
            'side by side': lambda r, c: (c, n * c, 1),
        }
        for ka, sa in layouts.items():
            for kb, sb in layouts.items():
                for kc, sc in layouts.items():
                    with self.subTest(A=ka, B=kb, C=kc), _SimulatedRuntime():
                        a = batch_view((n, M, K), sa(M, K), values=A)
                        b = batch_view((n, K, N), sb(K, N), values=B)
                        c = batch_view((n, M, N), sc(M, N), values=[[[float('nan')] * N] * M] * n)
                        h = _SimulatedBatchHandle(stream=0x10)
                        self.assertIs(h.gemm(a, b, out=c), c)
                        self.assertEqual(h.products[-1]['strides'], (sa(M, K)[0], sb(K, N)[0], sc(M, N)[0]))
                        got = batch_values(c)
                        for i in range(n):
                            self.assertLess(support.relative_error(got[i], support.reference(A[i], B[i])), 1e-6)

    def test_device_broadcasts(self):
        rng = support.rng(46)
        A, B = support.random_matrix(4, 5, rng), [support.random_matrix(5, 3, rng) for _ in range(6)]
        for a, stride_a in ((FakeArray(4, 5, values=A), 0),                         # 2-D
                            (batch_view((1, 4, 5), (20, 5, 1), values=[A]), 0),      # a batch of 1
                            (batch_view((6, 4, 5), (0, 5, 1), values=[A]), 0)):     # stride 0 (expand)
            with self.subTest(a=a.extra.get('shape', a.shape)), _SimulatedRuntime():
                b = batch_view((6, 5, 3), (15, 3, 1), values=B)
                c = batch_view((6, 4, 3), (12, 3, 1))
                h = _SimulatedBatchHandle()
                h.sgemm(a, b, out=c)
                self.assertEqual(h.products[-1]['strides'], (stride_a, 15, 12))
                for i, got in enumerate(batch_values(c)):
                    self.assertLess(support.relative_error(got, support.reference(A, B[i])), 1e-6)

    def test_matmul_against_numpy(self):
        saved = _api.default_handle
        shapes = [((4, 5), (5, 3)), ((2, 4, 5), (2, 5, 3)), ((2, 4, 5), (5, 3)), ((4, 5), (2, 5, 3)),
                  ((1, 4, 5), (3, 5, 2)), ((3, 4, 5), (1, 5, 2)), ((1, 1, 1), (1, 1, 1)), ((0, 2, 3), (3, 4)),
                  ((2, 0, 3), (2, 3, 4)), ((2, 3, 0), (0, 4))]
        try:
            for sa, sb in shapes:
                with self.subTest(a=sa, b=sb), _SimulatedRuntime():
                    handle = _SimulatedBatchHandle()
                    _api.default_handle = lambda device=None: handle
                    a, b = self.uniform(*sa), self.uniform(*sb)
                    want = numpy.matmul(a.astype(numpy.float64), b.astype(numpy.float64))
                    got = gemmladder.matmul(a, b, variant='warptile')
                    self.assertEqual((type(got), got.shape, got.dtype), (numpy.ndarray, want.shape, numpy.float32))
                    if want.size:
                        self.assertLess(numpy.abs(got - want).max(), 1e-5)
                    out = numpy.full(want.shape, numpy.nan, numpy.float32)
                    self.assertIs(gemmladder.matmul(a, b, out=out), out)
                    self.assertTrue(numpy.array_equal(out, got))
                    if want.size:  # else nothing to write, and no call
                        self.assertEqual(handle.products[-1]['batch'],
                                         None if len(want.shape) == 2 else want.shape[0])
        finally:
            _api.default_handle = saved


class BatchArgumentErrors(unittest.TestCase):
    """Batches and matmul the call cannot express: refused before any CUDA call."""

    def rejects(self, error, pattern, *args, function=None, **kwargs):
        with _NoGpu(), self.assertRaisesRegex(error, pattern):
            (function or gemmladder.gemm)(*args, **kwargs)

    def test_shapes(self):
        a, b = batch_view((3, 4, 5), (20, 5, 1)), batch_view((3, 5, 2), (10, 2, 1))
        self.rejects(ValueError, 'batch sizes do not match: A holds 3 matrices and B 2', a,
                     batch_view((2, 5, 2), (10, 2, 1)))
        self.rejects(ValueError, r'shapes do not match: op\(A\) is 4 x 5 \(A 3 x 4 x 5\) but op\(B\) is 4 x 2',
                     a, batch_view((3, 4, 2), (8, 2, 1)))
        self.rejects(ValueError, r'^out is 4 x 2 but op\(A\) op\(B\) is 3 x 4 x 2', a, b, out=FakeArray(4, 2))
        self.rejects(ValueError, r'^out is 2 x 4 x 2 but op\(A\) op\(B\) is 3 x 4 x 2', a, b,
                     out=batch_view((2, 4, 2), (8, 2, 1)))
        self.rejects(ValueError, r"out is 1 x 4 x 2 but op\(A\) op\(B\) is 4 x 2$", FakeArray(4, 5), FakeArray(5, 2),
                     out=batch_view((1, 4, 2), (8, 2, 1)))
        self.rejects(ValueError, r"out is 3 x 4 x 2 but op\(A\) op\(B\) is 1 x 4 x 2 \(numpy.matmul's broadcasting "
                     r"of A 1 x 4 x 5 and B 5 x 2\)", batch_view((1, 4, 5), (20, 5, 1)), FakeArray(5, 2),
                     out=batch_view((3, 4, 2), (8, 2, 1)))
        self.rejects(ValueError, r'beta = 2 reads C: pass it as out=', a, b, beta=2)

    def test_batch_past_the_library(self):
        big = batch_view((2**31, 1, 1), (0, 1, 1))  # one float, seen 2^31 times
        with _NoGpu(), self.assertRaisesRegex(ValueError, r'^a batch of 2147483648 products is more than the '
                                              r'library takes \(2147483647\)'):
            _matrix.plan(big, FakeArray(1, 1), None, 1.0, 0.0, False, False)
        plan = _matrix.plan(batch_view((2**31 - 1, 1, 1), (0, 1, 1)), FakeArray(1, 1), None, 1.0, 0.0, False, False)
        self.assertEqual((plan.batch, plan.a.stride, plan.a.count), (2**31 - 1, 0, 1))

    def test_dtypes_kinds_and_memory(self):
        a, b = batch_view((3, 4, 5), (20, 5, 1)), batch_view((3, 5, 2), (10, 2, 1))
        wide = FakeArray(1, 1, extra={'shape': (3, 4, 5), 'strides': None, 'typestr': '<f8'})
        self.rejects(TypeError, 'A has dtype .*float32 only', wide, b)
        self.rejects(TypeError, 'all be numpy arrays or all be CUDA arrays', a, batch_view((3, 5, 2), (10, 2, 1),
                                                                                     device=False))
        self.rejects(ValueError, 'walks its batch backwards', batch_view((3, 4, 5), (-20, 5, 1), offset=40), b)
        self.rejects(ValueError, 'neither contiguous rows nor contiguous columns',
                     batch_view((3, 4, 5), (40, 10, 2)), b)
        self.rejects(ValueError, 'out is read-only', a, b, out=batch_view((3, 4, 2), (8, 2, 1), readonly=True))
        self.rejects(ValueError, r'^out \(shape \(3, 4, 2\), strides \(0, 8, 4\) bytes\): two of its matrices share '
                     'an element', a, b, out=batch_view((3, 4, 2), (0, 2, 1)))
        self.rejects(ValueError, 'two of its matrices share', a, b, out=batch_view((3, 4, 2), (3, 2, 1)))
        # One allocation holding B and then out: their spans meet (out's first
        # matrix in the gap of B's), which the library refuses for batches.
        whole = FakeArray(1, 200)
        b_in = batch_view((3, 5, 2), (40, 2, 1), base=whole)
        self.rejects(ValueError, "^out overlaps B: the memory from out's first element to its last meets B's",
                     a, b_in, out=batch_view((3, 4, 2), (40, 2, 1), base=whole, offset=10))
        # A batch of 1 is one product: exact overlap, as for 2-D arrays.
        self.rejects(ValueError, '^out overlaps A: at least one element', batch_view((1, 4, 4), (16, 4, 1), base=whole),
                     FakeArray(4, 4), out=batch_view((1, 4, 4), (16, 4, 1), base=whole, offset=15))

    def test_matmul_messages(self):
        m = gemmladder.matmul
        self.rejects(ValueError, r"^shapes do not match: a is 4 x 5 and b is 6 x 3, but a @ b needs a's columns "
                     r"\(5\) to be as many as b's rows \(6\)", FakeArray(4, 5), FakeArray(6, 3), function=m)
        self.rejects(ValueError, r'^a must be a 2-D matrix, got shape \(20,\) \(1-D\); .*reshape a vector to '
                     r'\(1, n\) or \(n, 1\)', FakeArray(4, 5, extra={'shape': (20,), 'strides': None}),
                     FakeArray(20, 1), function=m)
        self.rejects(ValueError, r'^b must be a 2-D matrix, got shape \(1, 1, 5, 3\) \(4-D\)', FakeArray(4, 5),
                     FakeArray(5, 3, extra={'shape': (1, 1, 5, 3), 'strides': None}), function=m)
        self.rejects(TypeError, r'^a has dtype .*float32 only', FakeArray(4, 5, typestr='<f8'), FakeArray(5, 3),
                     function=m)
        self.rejects(TypeError, r'^out has dtype', FakeArray(4, 5), FakeArray(5, 3),
                     out=FakeArray(4, 3, typestr='<i4'), function=m)
        self.rejects(ValueError, r'^batch sizes do not match: a holds 3 matrices and b 2',
                     batch_view((3, 4, 5), (20, 5, 1)), batch_view((2, 5, 2), (10, 2, 1)), function=m)
        self.rejects(ValueError, r'^out is 4 x 2 but a @ b is 3 x 4 x 2', batch_view((3, 4, 5), (20, 5, 1)),
                     FakeArray(5, 2), out=FakeArray(4, 2), function=m)
        self.rejects(TypeError, r'^a: expected a numpy array', [[1.0]], FakeArray(1, 1), function=m)
        self.rejects(ValueError, 'unknown variant', FakeArray(4, 5), FakeArray(5, 3), variant='fastest', function=m)
        self.rejects(TypeError, r'a, b and out must all be numpy arrays or all be CUDA arrays', FakeArray(4, 5),
                     FakeArray(5, 3), out=FakeArray(4, 3, device=False), function=m)

    @unittest.skipIf(numpy is None, 'numpy is not installed')
    def test_numpy(self):
        m = gemmladder.matmul
        a = numpy.ones((2, 4, 5), numpy.float32)
        self.rejects(ValueError, r'4-D', a[None], a, function=m)
        self.rejects(ValueError, r'1-D', numpy.ones(5, numpy.float32), a, function=m)
        self.rejects(TypeError, r'float64', a.astype(numpy.float64), a.transpose(0, 2, 1), function=m)
        shared = numpy.lib.stride_tricks.as_strided(numpy.zeros(16, numpy.float32), (2, 4, 4), (0, 16, 4))
        self.rejects(ValueError, 'two of its matrices share', a, a.transpose(0, 2, 1), out=shared, function=m)
        self.rejects(ValueError, "out overlaps a: the memory", a, a.transpose(0, 2, 1), out=a[:, :, :4],
                     function=m)


class ValidCallsReachTheLibrary(unittest.TestCase):
    def test_valid_call_gets_to_the_handle(self):
        # With a GPU the library rejects the host pointers; without one the
        # handle cannot be created. Either way it is the library speaking.
        with self.assertRaises(gemmladder.Error) as caught:
            gemmladder.sgemm(FakeArray(4, 5), FakeArray(5, 3), out=FakeArray(4, 3))
        self.assertIn(caught.exception.status, (gemmladder.Status.NO_DEVICE,
                                                gemmladder.Status.INVALID_ARGUMENT))


class TuningBinding(unittest.TestCase):
    def test_missing_symbol_is_a_clear_error(self):
        with self.assertRaisesRegex(NotImplementedError, 'gl_no_such_function is not exported by the loaded'):
            _library.optional('gl_no_such_function')

    def test_lazy_binding(self):
        if gemmladder.tuning_supported():
            self.assertIsInstance(gemmladder.variant_configs('cublas'), list)
        else:  # a library built before the tuning interface: a clear error, not a crash
            with self.assertRaisesRegex(NotImplementedError, 'gl_variant_config_count is not exported'):
                gemmladder.variant_configs('warptile')
            with self.assertRaisesRegex(NotImplementedError, 'gl_tuning_check'):
                gemmladder.tuning_check('/nonexistent')



class Workspace(unittest.TestCase):
    """The scratch-memory settings (gl_set_workspace_limit, gl_set_workspace,
    gl_sgemm_workspace_size): declared and exported, the library's checks
    through the declarations, and the arguments refused before the library."""

    NAMES = ('gl_set_workspace_limit', 'gl_get_workspace_limit', 'gl_set_workspace',
             'gl_get_workspace', 'gl_sgemm_workspace_size')

    def test_exported_and_declared(self):
        for name in self.NAMES:
            self.assertTrue(_library.has(name), name)
            self.assertIn(name, _library._OPTIONAL)
        self.assertEqual(_library.WORKSPACE_NO_LIMIT, 2**63 - 1)
        self.assertIn('#define GL_WORKSPACE_NO_LIMIT ((int64_t)0x7fffffffffffffffLL)',
                      support.header_text())

    def test_null_handle_through_the_declarations(self):
        lib = _library.load()
        size = ctypes.c_int64(-1)
        address = ctypes.c_void_p()
        calls = [
            ('gl_set_workspace_limit', (None, 0)),
            ('gl_get_workspace_limit', (None, ctypes.byref(size))),
            ('gl_set_workspace', (None, None, 0)),
            ('gl_get_workspace', (None, ctypes.byref(address), ctypes.byref(size))),
            ('gl_sgemm_workspace_size', (None, int(gemmladder.DEFAULT_VARIANT), 0, 0, 0, 4, 4, 4,
                                         None, 4, None, 4, None, 4, ctypes.byref(size))),
        ]
        for name, arguments in calls:
            with self.subTest(name=name):
                self.assertEqual(_library.optional(name)(*arguments), gemmladder.Status.INVALID_ARGUMENT)
                self.assertIn('handle is NULL', lib.gl_last_error(None).decode())

    def test_arguments_refused_before_the_library(self):
        h = _SimulatedHandle()
        h._ptr = None  # closed: any call that got past its arguments says so
        with self.assertRaisesRegex(TypeError, 'address must be an integer'):
            h.set_workspace(1.5, 256)
        with self.assertRaisesRegex(TypeError, 'nbytes must be an integer, not a bool'):
            h.set_workspace(256, True)
        with self.assertRaisesRegex(ValueError, 'address = -256 is outside'):
            h.set_workspace(-256, 256)
        with self.assertRaisesRegex(ValueError, 'nbytes = -1 is outside 0 ..'):
            h.set_workspace(256, -1)
        with self.assertRaisesRegex(ValueError, 'workspace_limit = -1 is outside 0 ..'):
            h.workspace_limit = -1
        with self.assertRaisesRegex(TypeError, 'workspace_limit must be an integer'):
            h.workspace_limit = 2.0
        with self.assertRaisesRegex(TypeError, 'M must be an integer'):
            h.workspace_size(4.0, 4, 4)
        for call in (lambda: h.set_workspace(None), lambda: h.set_workspace(4096, 256),
                     lambda: setattr(h, 'workspace_limit', None),
                     lambda: setattr(h, 'workspace_limit', 0), lambda: h.workspace_limit,
                     lambda: h.workspace, lambda: h.workspace_size(4, 4, 4)):
            with self.assertRaisesRegex(ValueError, 'the handle is closed'):
                call()


class Tuning(unittest.TestCase):
    def setUp(self):
        if not gemmladder.tuning_supported():
            self.skipTest('the library does not export the tuning interface yet')

    def test_compiled_configurations(self):
        for v in gemmladder.variants():
            info = gemmladder.variant_info(v)
            configs = gemmladder.variant_configs(v)
            self.assertEqual(len(configs), info.config_count, info.name)
            self.assertEqual(bool(configs), bool(info.tile_fields), info.name)  # cublas: neither
            for t in configs:
                self.assertIs(t.origin, gemmladder.TilesOrigin.FIXED)
                for f in info.tile_fields:  # every field of its schema, within its range
                    self.assertTrue(f.min <= t.get(f.name) <= f.max, (info.name, f, t))
                names = {f.name for f in info.tile_fields}
                for k in gemmladder.Tiles._NUMBERS[:-1]:  # the others are 0
                    self.assertTrue(k in names or getattr(t, k) == 0, (info.name, k, t))

    def test_check_and_load_a_good_table(self):
        # One row per variant that takes rows, naming its first compiled
        # configuration with the keys of its schema (docs/tuning.md's format).
        rows = ['gemmladder-tuning 1']
        for v in gemmladder.variants():
            info = gemmladder.variant_info(v)
            if not info.takes_rows:
                continue
            first = gemmladder.variant_configs(v)[0]
            keys = [f.name for f in info.tile_fields if not f.derived]
            rows.append('default %s small %s' % (info.name, ' '.join('%s=%d' % (k, first.get(k)) for k in keys)))
        self.assertGreater(len(rows), 1)
        with tempfile.NamedTemporaryFile('w', suffix='.txt') as table:
            table.write('\n'.join(rows) + '\n')
            table.flush()
            gemmladder.tuning_check(table.name)
            gemmladder.tuning_load(table.name)
        gemmladder.tuning_load(None)

    def test_check_rejects_bad_tables(self):
        missing = os.path.join(tempfile.gettempdir(), 'no-such-dir', 'table.txt')
        with self.assertRaises(gemmladder.Error) as caught:
            gemmladder.tuning_check(missing)
        self.assertIs(caught.exception.status, gemmladder.Status.TUNING_ERROR)
        self.assertIn(missing, caught.exception.message)
        with tempfile.NamedTemporaryFile('w', suffix='.txt') as bad:
            bad.write('this is not a tuning table\n')
            bad.flush()
            with self.assertRaises(gemmladder.Error) as caught:
                gemmladder.tuning_check(bad.name)
            self.assertIs(caught.exception.status, gemmladder.Status.TUNING_ERROR)
            self.assertIn(bad.name + ':', caught.exception.message)
            with self.assertRaises(gemmladder.Error):  # rejected as a whole
                gemmladder.tuning_load(bad.name)
        gemmladder.tuning_load(None)  # removing the (absent) override always works


if __name__ == '__main__':
    support.run()
