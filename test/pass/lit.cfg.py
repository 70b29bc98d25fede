# lit configuration for the pass's tests: one behaviour per test, checked with FileCheck on IR,
# on `crashtrail meta` output (the decoding metadata), or by running the program.
import os
import lit.formats

config.name = "crashtrail-pass"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".c", ".cpp", ".ll", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.crashtrail_build, "test", "pass")

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, os.path.join(config.crashtrail_build, "bin"), config.environment.get("PATH", "")])
config.environment["HOME"] = config.test_exec_root

lib = os.path.join(config.crashtrail_build, "lib")
config.substitutions.append(("%clangxx", config.clangxx))
config.substitutions.append(("%clang", config.clang))
config.substitutions.append(("%optplugin", os.path.join(lib, "crashtrail-opt.so")))
config.substitutions.append(("%plugin", os.path.join(lib, "crashtrail-pass.so")))
config.substitutions.append(("%rt", os.path.join(lib, "libcrashtrail-rt.a")))
config.substitutions.append(("%opt", os.path.join(config.llvm_tools_dir, "opt")))
config.substitutions.append(("%crashtrail", os.path.join(config.crashtrail_build, "bin", "crashtrail")))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.available_features.add("llvm%d" % config.llvm_major)
# LTO tests link with the lld of the same LLVM (an older lld cannot read newer bitcode).
lld = os.path.join(config.llvm_tools_dir, "ld.lld")
if os.path.exists(lld):
    config.available_features.add("lld")
    config.substitutions.append(("%lld", "-fuse-ld=lld --ld-path=" + lld))
