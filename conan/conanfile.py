"""Conan 2 recipe for fusegrad, a header-only C++20 automatic-differentiation library.

Run from the repository root:  conan create conan --build=missing -s compiler.cppstd=20
"""
import os
import re

from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.files import copy, load
from conan.tools.layout import basic_layout

required_conan_version = ">=2.0"


class FusegradConan(ConanFile):
    name = "fusegrad"
    description = ("Header-only C++20 reverse-mode automatic differentiation: "
                   "fused expression templates and a dynamic tape")
    topics = ("autodiff", "automatic-differentiation", "expression-templates", "eigen", "header-only")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"  # only to check C++20; package_id() drops them
    no_copy_source = True
    # The Boost package needs no compiled libraries: fusegrad uses Hana and Mp11 only.
    default_options = {"boost/*:header_only": True}

    def set_version(self):
        # One source of truth: project(fusegrad VERSION x.y.z) in the top-level CMakeLists.txt.
        cmakelists = load(self, os.path.join(self.recipe_folder, "..", "CMakeLists.txt"))
        self.version = re.search(r"project\(fusegrad VERSION ([0-9.]+)", cmakelists).group(1)

    def export_sources(self):
        # This recipe lives in conan/; the headers are ../include/fusegrad/**.
        copy(self, "include/*", src=os.path.join(self.recipe_folder, ".."), dst=self.export_sources_folder)

    def layout(self):
        basic_layout(self, src_folder=".")

    def requirements(self):
        self.requires("eigen/3.4.0")
        self.requires("boost/[>=1.74 <2]")

    def package_id(self):
        self.info.clear()  # headers only: one package for every configuration

    def validate(self):
        check_min_cppstd(self, 20)

    def package(self):
        copy(self, "*.hpp", src=os.path.join(self.source_folder, "include"),
             dst=os.path.join(self.package_folder, "include"))

    def package_info(self):
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        # The same names as the CMake package: find_package(fusegrad) and fusegrad::fusegrad.
        self.cpp_info.set_property("cmake_file_name", "fusegrad")
        self.cpp_info.set_property("cmake_target_name", "fusegrad::fusegrad")
