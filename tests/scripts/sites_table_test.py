#!/usr/bin/env python3
"""The sites table (legion_glue/sites.py) against what depends on it.

  - the table itself: every row names a known place, the anchors its place
    needs, only placeholders it declares, a marker the tool's marked-line
    pattern accepts, and no marker twice in a file;
  - legion_glue/INTEGRATION.md: its table of edits is the one the rows
    generate, so every site of the table is described there and nothing else
    is;
  - the helpers: every function, class and method a row's line calls or
    names is declared where the line's header brings it in:
    realm_shadow::site::X and realm_shadow::X in realm_shadow/realm_sites.h
    or realm_shadow/heap_observer.h; realm_shadow::legion::site::X in
    legion_glue/legion_sites.h, both with tracking on and compiled out; a
    member's methods in the member's class; an included header exists; a
    RealmShadow:: target is an alias some CMakeLists.txt defines.

usage: sites_table_test.py REPOSITORY_ROOT
"""
import glob
import os
import re
import sys
import unittest

ROOT = None
sites = None


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def code_of(text):
    """text without its comments (string literals kept: the headers hold
    none that a comment marker or a declaration could hide in)."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)),
                  text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


# A declaration or definition of function `name`: the name follows a type
# (a word, '>', '*' or '&'), not an operator, a '::' or a keyword that
# starts an expression.
NOT_A_TYPE = {"return", "else", "new", "delete", "throw", "case", "co_return"}


def declares_function(code, name):
    for m in re.finditer(r"([A-Za-z_][A-Za-z_0-9]*|[>*&])\s+%s\s*\(" % name,
                         code):
        if m.group(1) not in NOT_A_TYPE:
            return True
    return False


def declares_class(code, name):
    return re.search(r"\b(?:class|struct)\s+%s\b[^;]*?\{" % name, code) is not None


def class_body(code, name):
    m = re.search(r"\b(?:class|struct)\s+%s\b[^;]*?\{" % name, code)
    if not m:
        return None
    depth = 0
    for i in range(m.end() - 1, len(code)):
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return code[m.end():i]
    return None


def legion_halves(code):
    """legion_sites.h's sites with tracking on, and compiled out."""
    on = re.search(r"^#if REALM_SHADOW_ENABLED\b", code, re.M)
    off = re.search(r"^#else\b.*$", code[on.end():], re.M)
    end = re.search(r"^#endif\b.*$", code[on.end() + off.end():], re.M)
    return (code[on.end():on.end() + off.start()],
            code[on.end() + off.end():on.end() + off.end() + end.start()])


class Table(unittest.TestCase):
    def test_rows_are_well_formed(self):
        marked = re.compile(r"^[a-z0-9-]+$")
        seen = set()
        for s in sites.SITES:
            with self.subTest(file=s.file, marker=s.marker):
                self.assertIn(s.place, sites.PLACES)
                for m in s.all_markers():
                    self.assertRegex(m, marked)
                    self.assertNotIn((s.file, m), seen, "marker twice in a file")
                    seen.add((s.file, m))
                if s.place in ("first", "last", "after", "before",
                               "before-last"):
                    self.assertTrue(s.function and s.function_name)
                if s.place in ("after", "before", "before-last", "after-each",
                               "member", "cmake-before", "cmake-after"):
                    self.assertTrue(s.statement and s.statement_name)
                if s.place == "member":
                    self.assertTrue(s.container and s.container_name)
                if s.place == "include":
                    self.assertRegex(s.line, r'^#include "[^"]+"$')
                # A "derives" row inserts nothing; every other row a line.
                self.assertEqual(s.line is None, s.place == "derives")
                if s.place == "derives":
                    self.assertTrue(s.container and s.container_name)
                if s.place == "after-each":
                    self.assertIn("(?P<state>", s.statement)
                    self.assertIn("{state}", s.marker)
                    self.assertTrue(s.markers)
                else:
                    self.assertFalse(s.markers)
                if s.params:
                    self.assertTrue(s.function, "parameters of no function")
                declared = set(s.params) | {"prefix"}
                for text in (s.line, s.statement, s.statement_name):
                    for name in sites.PLACEHOLDER.findall(text or ""):
                        if s.place == "after-each" and name == "state":
                            continue
                        self.assertIn(name, declared,
                                      "{%s} is not a parameter" % name)
                for name in s.params:
                    used = [t for t in (s.line, s.statement) if t and
                            "{%s}" % name in t]
                    self.assertTrue(used, "parameter %s used nowhere" % name)

    def test_the_tool_reads_the_table(self):
        tool = read("scripts/legion-enable-tracking")
        self.assertIn("import sites", tool)
        self.assertIn("sites.rows_of(", tool)
        self.assertIn("sites.files()", tool)


class Document(unittest.TestCase):
    def test_integration_md_has_the_generated_table(self):
        text = read("legion_glue/INTEGRATION.md")
        block = sites.document_block(text)
        self.assertIsNotNone(block, "INTEGRATION.md lost the lines %r / %r"
                             % (sites.BEGIN, sites.END))
        expected = sites.markdown()
        if block != expected:
            self.fail("INTEGRATION.md's table of edits differs from "
                      "legion_glue/sites.py; run python3 legion_glue/sites.py "
                      "--update.  Expected:\n" + expected)

    def test_every_site_is_described_once(self):
        block = sites.document_block(read("legion_glue/INTEGRATION.md"))
        for s in sites.SITES:
            for m in s.all_markers():
                with self.subTest(marker=m):
                    self.assertTrue("`%s`" % m in block,
                                    "INTEGRATION.md: no site %s" % m)
                    line = sites.shown(s, s.line)
                    if line is not None:
                        self.assertTrue("`%s`" % line in block,
                                        "INTEGRATION.md: no line %s" % line)


class Helpers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.realm = code_of(read("realm_shadow/realm_sites.h"))
        cls.heap = code_of(read("realm_shadow/heap_observer.h"))
        cls.legion_on, cls.legion_off = legion_halves(
            code_of(read("legion_glue/legion_sites.h")))
        # The members the table gives Realm's classes: name -> class.
        cls.members = {}
        for s in sites.SITES:
            if s.place == "member":
                m = re.fullmatch(r"realm_shadow::(?:site::)?(\w+)\s+(\w+)\s*;",
                                 s.line)
                assert m, "a member line names its type and name: " + s.line
                cls.members[m.group(2)] = m.group(1)

    def realm_declares(self, name, what):
        code = self.realm + self.heap
        ok = (declares_class(code, name) if what == "class"
              else declares_function(code, name) or declares_class(code, name))
        self.assertTrue(ok, "%s %s is declared in neither "
                        "realm_shadow/realm_sites.h nor heap_observer.h"
                        % (what, name))

    def test_every_helper_is_declared(self):
        checked = 0
        for s in sites.SITES:
            line = sites.shown(s, s.line) or ""
            with self.subTest(file=s.file, marker=s.marker):
                for name in re.findall(r"realm_shadow::legion::site::(\w+)\s*\(",
                                       line):
                    self.assertTrue(declares_function(self.legion_on, name),
                                    "%s: not in legion_sites.h with tracking on"
                                    % name)
                    self.assertTrue(declares_function(self.legion_off, name),
                                    "%s: not in legion_sites.h compiled out"
                                    % name)
                    checked += 1
                for name in re.findall(r"realm_shadow::(?:site::)?(\w+)\s*\(",
                                       line):
                    self.realm_declares(name, "function")
                    checked += 1
                for name in re.findall(r"realm_shadow::(?:site::)?(\w+)\s+\w+\s*;",
                                       line):
                    self.realm_declares(name, "class")
                    checked += 1
                for member, method in re.findall(r"\b(\w+)\s*\.\s*(\w+)\s*\(",
                                                 line):
                    self.assertIn(member, self.members,
                                  "%s.%s: %s is no member the table adds"
                                  % (member, method, member))
                    body = class_body(self.realm + self.heap,
                                      self.members[member])
                    self.assertIsNotNone(body, self.members[member])
                    self.assertTrue(declares_function(body, method),
                                    "%s::%s is not declared"
                                    % (self.members[member], method))
                    checked += 1
                # An argument reaching into a member the table adds
                # (current_allocator.shadow_observer) names a real member.
                for member in re.findall(r"\.\s*(shadow_\w+)\b(?!\s*\()", line):
                    self.assertIn(member, self.members)
                for header in re.findall(r'#include "([^"]+)"', line):
                    self.assertTrue(os.path.isfile(os.path.join(ROOT, header)),
                                    header)
                    checked += 1
                for target in re.findall(r"RealmShadow::(\w+)", line):
                    aliases = "".join(read(os.path.relpath(p, ROOT)) for p in
                                      glob.glob(os.path.join(ROOT, "**",
                                                             "CMakeLists.txt"),
                                                recursive=True)
                                      if "/build" not in p)
                    self.assertRegex(aliases, r"add_library\s*\(\s*RealmShadow::"
                                     r"%s\s+ALIAS\b" % target)
                    checked += 1
        self.assertGreater(checked, len(sites.SITES) - 6)

    def test_the_declaration_finder_tells_a_call_from_a_declaration(self):
        self.assertTrue(declares_function("inline void Foo(int a);", "Foo"))
        self.assertTrue(declares_function(
            "template <typename... Args> inline void Foo(Args&&...) {}", "Foo"))
        self.assertFalse(declares_function("  x = 1;\n  Foo(a);", "Foo"))
        self.assertFalse(declares_function("return Foo(a);", "Foo"))
        self.assertFalse(declares_function("site::Foo(a);", "Foo"))
        self.assertFalse(declares_function("void Food(int);", "Foo"))


if __name__ == "__main__":
    ROOT = os.path.abspath(sys.argv.pop(1))
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(ROOT, "legion_glue"))
    import sites  # noqa: E402,F811
    unittest.main(verbosity=2)
