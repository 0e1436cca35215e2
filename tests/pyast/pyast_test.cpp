// Unit tests for pyast. Expected dumps and error positions are CPython
// 3.12's own output (ast.dump / SyntaxError) for the same sources.
#include <gtest/gtest.h>

#include <string>

#include "pyast/dump.h"
#include "pyast/lexer.h"
#include "pyast/parse.h"

namespace tritonrl::pyast {
namespace {

struct DumpCase {
  const char* name;
  const char* source;
  bool attributes;
  const char* expected;
};

const DumpCase kDumpCases[] = {
    {"FStringNestedSpec", "f\"{x!r:>{width}.{prec}} {y=} {{lit}} {f'{z:{w}}'}\"\n", false,
     "Module(body=[Expr(value=JoinedStr(values=[FormattedValue(value=Name(id='x', ctx=Load()), "
     "conversion=114, format_spec=JoinedStr(values=[Constant(value='>'), "
     "FormattedValue(value=Name(id='width', ctx=Load()), conversion=-1), Constant(value='.'), "
     "FormattedValue(value=Name(id='prec', ctx=Load()), conversion=-1), Constant(value='')])), "
     "Constant(value=' y='), FormattedValue(value=Name(id='y', ctx=Load()), conversion=114), "
     "Constant(value=' {lit} '), "
     "FormattedValue(value=JoinedStr(values=[FormattedValue(value=Name(id='z', ctx=Load()), "
     "conversion=-1, format_spec=JoinedStr(values=[FormattedValue(value=Name(id='w', ctx=Load()), "
     "conversion=-1), Constant(value='')]))]), conversion=-1)]))], type_ignores=[])"},
    {"FStringDebugSpec", "f\"{ a = !s:^10}\" f\"{b=:x}\"\n", false,
     "Module(body=[Expr(value=JoinedStr(values=[Constant(value=' a = '), "
     "FormattedValue(value=Name(id='a', ctx=Load()), conversion=115, "
     "format_spec=JoinedStr(values=[Constant(value='^10')])), Constant(value='b='), "
     "FormattedValue(value=Name(id='b', ctx=Load()), conversion=-1, "
     "format_spec=JoinedStr(values=[Constant(value='x')]))]))], type_ignores=[])"},
    {"FStringSameQuotes", "f\"{\"inner\" + f\"{1}\"}\"\n", false,
     "Module(body=[Expr(value=JoinedStr(values=[FormattedValue(value=BinOp(left=Constant(value='"
     "inner'), op=Add(), right=JoinedStr(values=[FormattedValue(value=Constant(value=1), "
     "conversion=-1)])), conversion=-1)]))], type_ignores=[])"},
    {"FStringMultiline", "f\"\"\"a\n{x\n + 1:\n>3}b\"\"\"\n", false,
     "Module(body=[Expr(value=JoinedStr(values=[Constant(value='a\\n'), "
     "FormattedValue(value=BinOp(left=Name(id='x', ctx=Load()), op=Add(), "
     "right=Constant(value=1)), conversion=-1, "
     "format_spec=JoinedStr(values=[Constant(value='\\n>3')])), Constant(value='b')]))], "
     "type_ignores=[])"},
    {"Numbers",
     "x = [1_000, 0x_FF, 0o17, 0b1010, 0xFFFFFFFFFFFFFFFFFFFFFFFF, 00, 1.5, 1e16, 1e15, 1e-05, "
     "0.0001, 1e999, 1e999j, 2j, 1.5J, 1_0.0_1e+1_0, .5, 5., 1E3]\n",
     false,
     "Module(body=[Assign(targets=[Name(id='x', ctx=Store())], "
     "value=List(elts=[Constant(value=1000), Constant(value=255), Constant(value=15), "
     "Constant(value=10), Constant(value=79228162514264337593543950335), Constant(value=0), "
     "Constant(value=1.5), Constant(value=1e+16), Constant(value=1000000000000000.0), "
     "Constant(value=1e-05), Constant(value=0.0001), Constant(value=inf), Constant(value=infj), "
     "Constant(value=2j), Constant(value=1.5j), Constant(value=100100000000.0), "
     "Constant(value=0.5), Constant(value=5.0), Constant(value=1000.0)], ctx=Load()))], "
     "type_ignores=[])"},
    {"StringEscapes",
     "s = [\"a'b\", 'a\"b', \"a'\\\"b\", \"\\x00\\x7f\\t\\n\\r\\\\\", "
     "\"\\u200b\\u00a0\\xe9\\U0001F600\", \"\\101\\7\", \"\\N{EM DASH}\", \"\\q\", r\"\\n\", "
     "u\"k\", b\"\\x00\\xff'\", rb\"\\d\", \"\\ud800\"]\n",
     false,
     "Module(body=[Assign(targets=[Name(id='s', ctx=Store())], "
     "value=List(elts=[Constant(value=\"a'b\"), Constant(value='a\"b'), Constant(value='a\\'\"b'), "
     "Constant(value='\\x00\\x7f\\t\\n\\r\\\\'), Constant(value='\\u200b\\xa0é😀'), "
     "Constant(value='A\\x07'), Constant(value='—'), Constant(value='\\\\q'), "
     "Constant(value='\\\\n'), Constant(value='k', kind='u'), Constant(value=b\"\\x00\\xff'\"), "
     "Constant(value=b'\\\\d'), Constant(value='\\ud800')], ctx=Load()))], type_ignores=[])"},
    {"ImplicitConcat", "x = (\"a\" \"b\"\n     u\"c\" f\"d{e}\" \"f\")\ny = b\"a\" B\"b\"\n", false,
     "Module(body=[Assign(targets=[Name(id='x', ctx=Store())], "
     "value=JoinedStr(values=[Constant(value='abcd'), FormattedValue(value=Name(id='e', "
     "ctx=Load()), conversion=-1), Constant(value='f')])), Assign(targets=[Name(id='y', "
     "ctx=Store())], value=Constant(value=b'ab'))], type_ignores=[])"},
    {"Positions",
     "def f(a, *, b: int = 1) -> None:\n    return (a +\n            b)[0].c(d, e=f)\n", true,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='a', "
     "lineno=1, col_offset=6, end_lineno=1, end_col_offset=7)], kwonlyargs=[arg(arg='b', "
     "annotation=Name(id='int', ctx=Load(), lineno=1, col_offset=15, end_lineno=1, "
     "end_col_offset=18), lineno=1, col_offset=12, end_lineno=1, end_col_offset=18)], "
     "kw_defaults=[Constant(value=1, lineno=1, col_offset=21, end_lineno=1, end_col_offset=22)], "
     "defaults=[]), "
     "body=[Return(value=Call(func=Attribute(value=Subscript(value=BinOp(left=Name(id='a', "
     "ctx=Load(), lineno=2, col_offset=12, end_lineno=2, end_col_offset=13), op=Add(), "
     "right=Name(id='b', ctx=Load(), lineno=3, col_offset=12, end_lineno=3, end_col_offset=13), "
     "lineno=2, col_offset=12, end_lineno=3, end_col_offset=13), slice=Constant(value=0, lineno=3, "
     "col_offset=15, end_lineno=3, end_col_offset=16), ctx=Load(), lineno=2, col_offset=11, "
     "end_lineno=3, end_col_offset=17), attr='c', ctx=Load(), lineno=2, col_offset=11, "
     "end_lineno=3, end_col_offset=19), args=[Name(id='d', ctx=Load(), lineno=3, col_offset=20, "
     "end_lineno=3, end_col_offset=21)], keywords=[keyword(arg='e', value=Name(id='f', ctx=Load(), "
     "lineno=3, col_offset=25, end_lineno=3, end_col_offset=26), lineno=3, col_offset=23, "
     "end_lineno=3, end_col_offset=26)], lineno=2, col_offset=11, end_lineno=3, "
     "end_col_offset=27), lineno=2, col_offset=4, end_lineno=3, end_col_offset=27)], "
     "decorator_list=[], returns=Constant(value=None, lineno=1, col_offset=27, end_lineno=1, "
     "end_col_offset=31), type_params=[], lineno=1, col_offset=0, end_lineno=3, "
     "end_col_offset=27)], type_ignores=[])"},
    {"PositionsUtf8", "s = \"é\" + x\n", true,
     "Module(body=[Assign(targets=[Name(id='s', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
     "end_col_offset=1)], value=BinOp(left=Constant(value='é', lineno=1, col_offset=4, "
     "end_lineno=1, end_col_offset=8), op=Add(), right=Name(id='x', ctx=Load(), lineno=1, "
     "col_offset=11, end_lineno=1, end_col_offset=12), lineno=1, col_offset=4, end_lineno=1, "
     "end_col_offset=12), lineno=1, col_offset=0, end_lineno=1, end_col_offset=12)], "
     "type_ignores=[])"},
    {"Decorators",
     "@a.b(c)\n@d\nclass C(B, metaclass=M):\n    \"\"\"doc\"\"\"\n    @property\n    async def "
     "f(self): ...\n",
     false,
     "Module(body=[ClassDef(name='C', bases=[Name(id='B', ctx=Load())], "
     "keywords=[keyword(arg='metaclass', value=Name(id='M', ctx=Load()))], "
     "body=[Expr(value=Constant(value='doc')), AsyncFunctionDef(name='f', "
     "args=arguments(posonlyargs=[], args=[arg(arg='self')], kwonlyargs=[], kw_defaults=[], "
     "defaults=[]), body=[Expr(value=Constant(value=Ellipsis))], "
     "decorator_list=[Name(id='property', ctx=Load())], type_params=[])], "
     "decorator_list=[Call(func=Attribute(value=Name(id='a', ctx=Load()), attr='b', ctx=Load()), "
     "args=[Name(id='c', ctx=Load())], keywords=[]), Name(id='d', ctx=Load())], type_params=[])], "
     "type_ignores=[])"},
    {"Match",
     "match p:\n    case Point(x=0, y=0) | [1, *rest] | {\"k\": v, **kw} as q if q:\n        "
     "pass\n    case -1 | 1 + 2j | None | \"s\" | a.b:\n        pass\n    case (x, y, *_):\n       "
     " pass\n    case _:\n        pass\n",
     false,
     "Module(body=[Match(subject=Name(id='p', ctx=Load()), "
     "cases=[match_case(pattern=MatchAs(pattern=MatchOr(patterns=[MatchClass(cls=Name(id='Point', "
     "ctx=Load()), patterns=[], kwd_attrs=['x', 'y'], "
     "kwd_patterns=[MatchValue(value=Constant(value=0)), MatchValue(value=Constant(value=0))]), "
     "MatchSequence(patterns=[MatchValue(value=Constant(value=1)), MatchStar(name='rest')]), "
     "MatchMapping(keys=[Constant(value='k')], patterns=[MatchAs(name='v')], rest='kw')]), "
     "name='q'), guard=Name(id='q', ctx=Load()), body=[Pass()]), "
     "match_case(pattern=MatchOr(patterns=[MatchValue(value=UnaryOp(op=USub(), "
     "operand=Constant(value=1))), MatchValue(value=BinOp(left=Constant(value=1), op=Add(), "
     "right=Constant(value=2j))), MatchSingleton(value=None), "
     "MatchValue(value=Constant(value='s')), MatchValue(value=Attribute(value=Name(id='a', "
     "ctx=Load()), attr='b', ctx=Load()))]), body=[Pass()]), "
     "match_case(pattern=MatchSequence(patterns=[MatchAs(name='x'), MatchAs(name='y'), "
     "MatchStar()]), body=[Pass()]), match_case(pattern=MatchAs(), body=[Pass()])])], "
     "type_ignores=[])"},
    {"SoftKeywordsAsNames", "match = 1\ntype = 2\nmatch(x)\ncase = [match, type]\nprint(match.x)\n",
     false,
     "Module(body=[Assign(targets=[Name(id='match', ctx=Store())], value=Constant(value=1)), "
     "Assign(targets=[Name(id='type', ctx=Store())], value=Constant(value=2)), "
     "Expr(value=Call(func=Name(id='match', ctx=Load()), args=[Name(id='x', ctx=Load())], "
     "keywords=[])), Assign(targets=[Name(id='case', ctx=Store())], "
     "value=List(elts=[Name(id='match', ctx=Load()), Name(id='type', ctx=Load())], ctx=Load())), "
     "Expr(value=Call(func=Name(id='print', ctx=Load()), args=[Attribute(value=Name(id='match', "
     "ctx=Load()), attr='x', ctx=Load())], keywords=[]))], type_ignores=[])"},
    {"Pep695",
     "type A[T] = list[T]\ndef f[T: int, *Ts, **P](x: T) -> T: ...\nclass C[K, V]: pass\n", false,
     "Module(body=[TypeAlias(name=Name(id='A', ctx=Store()), type_params=[TypeVar(name='T')], "
     "value=Subscript(value=Name(id='list', ctx=Load()), slice=Name(id='T', ctx=Load()), "
     "ctx=Load())), FunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='x', "
     "annotation=Name(id='T', ctx=Load()))], kwonlyargs=[], kw_defaults=[], defaults=[]), "
     "body=[Expr(value=Constant(value=Ellipsis))], decorator_list=[], returns=Name(id='T', "
     "ctx=Load()), type_params=[TypeVar(name='T', bound=Name(id='int', ctx=Load())), "
     "TypeVarTuple(name='Ts'), ParamSpec(name='P')]), ClassDef(name='C', bases=[], keywords=[], "
     "body=[Pass()], decorator_list=[], type_params=[TypeVar(name='K'), TypeVar(name='V')])], "
     "type_ignores=[])"},
    {"Walrus",
     "if (n := len(a)) > 10:\n    print(y := 1, z=(w := 2))\n[y for x in d if (y := f(x))]\n",
     false,
     "Module(body=[If(test=Compare(left=NamedExpr(target=Name(id='n', ctx=Store()), "
     "value=Call(func=Name(id='len', ctx=Load()), args=[Name(id='a', ctx=Load())], keywords=[])), "
     "ops=[Gt()], comparators=[Constant(value=10)]), body=[Expr(value=Call(func=Name(id='print', "
     "ctx=Load()), args=[NamedExpr(target=Name(id='y', ctx=Store()), value=Constant(value=1))], "
     "keywords=[keyword(arg='z', value=NamedExpr(target=Name(id='w', ctx=Store()), "
     "value=Constant(value=2)))]))], orelse=[]), Expr(value=ListComp(elt=Name(id='y', ctx=Load()), "
     "generators=[comprehension(target=Name(id='x', ctx=Store()), iter=Name(id='d', ctx=Load()), "
     "ifs=[NamedExpr(target=Name(id='y', ctx=Store()), value=Call(func=Name(id='f', ctx=Load()), "
     "args=[Name(id='x', ctx=Load())], keywords=[]))], is_async=0)]))], type_ignores=[])"},
    {"StarExpressions",
     "a, *b = *c, d\nfor x, *y in z: pass\nf(*a, *b, **c, **d)\nx[*a]\nreturn *a, b\n", false,
     "Module(body=[Assign(targets=[Tuple(elts=[Name(id='a', ctx=Store()), "
     "Starred(value=Name(id='b', ctx=Store()), ctx=Store())], ctx=Store())], "
     "value=Tuple(elts=[Starred(value=Name(id='c', ctx=Load()), ctx=Load()), Name(id='d', "
     "ctx=Load())], ctx=Load())), For(target=Tuple(elts=[Name(id='x', ctx=Store()), "
     "Starred(value=Name(id='y', ctx=Store()), ctx=Store())], ctx=Store()), iter=Name(id='z', "
     "ctx=Load()), body=[Pass()], orelse=[]), Expr(value=Call(func=Name(id='f', ctx=Load()), "
     "args=[Starred(value=Name(id='a', ctx=Load()), ctx=Load()), Starred(value=Name(id='b', "
     "ctx=Load()), ctx=Load())], keywords=[keyword(value=Name(id='c', ctx=Load())), "
     "keyword(value=Name(id='d', ctx=Load()))])), Expr(value=Subscript(value=Name(id='x', "
     "ctx=Load()), slice=Tuple(elts=[Starred(value=Name(id='a', ctx=Load()), ctx=Load())], "
     "ctx=Load()), ctx=Load())), Return(value=Tuple(elts=[Starred(value=Name(id='a', ctx=Load()), "
     "ctx=Load()), Name(id='b', ctx=Load())], ctx=Load()))], type_ignores=[])"},
    {"Parameters",
     "def f(a, b=1, /, c=2, *args, d, e=3, **kw): pass\nlambda: 0\nlambda a, /, *, b: 0\n", false,
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[arg(arg='a'), arg(arg='b')], "
     "args=[arg(arg='c')], vararg=arg(arg='args'), kwonlyargs=[arg(arg='d'), arg(arg='e')], "
     "kw_defaults=[None, Constant(value=3)], kwarg=arg(arg='kw'), defaults=[Constant(value=1), "
     "Constant(value=2)]), body=[Pass()], decorator_list=[], type_params=[]), "
     "Expr(value=Lambda(args=arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], "
     "defaults=[]), body=Constant(value=0))), "
     "Expr(value=Lambda(args=arguments(posonlyargs=[arg(arg='a')], args=[], "
     "kwonlyargs=[arg(arg='b')], kw_defaults=[None], defaults=[]), body=Constant(value=0)))], "
     "type_ignores=[])"},
    {"TryStarWithAsync",
     "try:\n    pass\nexcept* E as e:\n    pass\nasync def g():\n    async with a as (b, c), d:\n  "
     "      pass\n    async for x in y:\n        await z\n    return [i async for i in j]\n",
     false,
     "Module(body=[TryStar(body=[Pass()], handlers=[ExceptHandler(type=Name(id='E', ctx=Load()), "
     "name='e', body=[Pass()])], orelse=[], finalbody=[]), AsyncFunctionDef(name='g', "
     "args=arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), "
     "body=[AsyncWith(items=[withitem(context_expr=Name(id='a', ctx=Load()), "
     "optional_vars=Tuple(elts=[Name(id='b', ctx=Store()), Name(id='c', ctx=Store())], "
     "ctx=Store())), withitem(context_expr=Name(id='d', ctx=Load()))], body=[Pass()]), "
     "AsyncFor(target=Name(id='x', ctx=Store()), iter=Name(id='y', ctx=Load()), "
     "body=[Expr(value=Await(value=Name(id='z', ctx=Load())))], orelse=[]), "
     "Return(value=ListComp(elt=Name(id='i', ctx=Load()), "
     "generators=[comprehension(target=Name(id='i', ctx=Store()), iter=Name(id='j', ctx=Load()), "
     "ifs=[], is_async=1)]))], decorator_list=[], type_params=[])], type_ignores=[])"},
    {"ImportsGlobals",
     "import a.b.c as d, e\nfrom ... import (f as g, h,)\nfrom .m import *\nglobal x, y\ndel a, "
     "b[0], c.d\nassert x, \"m\"\nraise E from None\n",
     false,
     "Module(body=[Import(names=[alias(name='a.b.c', asname='d'), alias(name='e')]), "
     "ImportFrom(names=[alias(name='f', asname='g'), alias(name='h')], level=3), "
     "ImportFrom(module='m', names=[alias(name='*')], level=1), Global(names=['x', 'y']), "
     "Delete(targets=[Name(id='a', ctx=Del()), Subscript(value=Name(id='b', ctx=Load()), "
     "slice=Constant(value=0), ctx=Del()), Attribute(value=Name(id='c', ctx=Load()), attr='d', "
     "ctx=Del())]), Assert(test=Name(id='x', ctx=Load()), msg=Constant(value='m')), "
     "Raise(exc=Name(id='E', ctx=Load()), cause=Constant(value=None))], type_ignores=[])"},
    {"Slices", "a[1:2, ::3, :, 4:]\na[b:=1]\na[1,]\n", false,
     "Module(body=[Expr(value=Subscript(value=Name(id='a', ctx=Load()), "
     "slice=Tuple(elts=[Slice(lower=Constant(value=1), upper=Constant(value=2)), "
     "Slice(step=Constant(value=3)), Slice(), Slice(lower=Constant(value=4))], ctx=Load()), "
     "ctx=Load())), Expr(value=Subscript(value=Name(id='a', ctx=Load()), "
     "slice=NamedExpr(target=Name(id='b', ctx=Store()), value=Constant(value=1)), ctx=Load())), "
     "Expr(value=Subscript(value=Name(id='a', ctx=Load()), slice=Tuple(elts=[Constant(value=1)], "
     "ctx=Load()), ctx=Load()))], type_ignores=[])"},
    {"AnnAssign", "x: int\n(y): int = 1\na.b: str = \"s\"\nc[0]: float\n", false,
     "Module(body=[AnnAssign(target=Name(id='x', ctx=Store()), annotation=Name(id='int', "
     "ctx=Load()), simple=1), AnnAssign(target=Name(id='y', ctx=Store()), "
     "annotation=Name(id='int', ctx=Load()), value=Constant(value=1), simple=0), "
     "AnnAssign(target=Attribute(value=Name(id='a', ctx=Load()), attr='b', ctx=Store()), "
     "annotation=Name(id='str', ctx=Load()), value=Constant(value='s'), simple=0), "
     "AnnAssign(target=Subscript(value=Name(id='c', ctx=Load()), slice=Constant(value=0), "
     "ctx=Store()), annotation=Name(id='float', ctx=Load()), simple=0)], type_ignores=[])"},
    {"CrLfAndContinuation", "x = 1 + \\\r\n    2\r\ns = \"\"\"a\r\nb\"\"\"\r\n", false,
     "Module(body=[Assign(targets=[Name(id='x', ctx=Store())], value=BinOp(left=Constant(value=1), "
     "op=Add(), right=Constant(value=2))), Assign(targets=[Name(id='s', ctx=Store())], "
     "value=Constant(value='a\\nb'))], type_ignores=[])"},
};

class DumpTest : public ::testing::TestWithParam<DumpCase> {};

TEST_P(DumpTest, MatchesCPython) {
  const DumpCase& c = GetParam();
  SyntaxError err;
  auto parsed = ParseModule(c.source, "t.py", &err);
  ASSERT_TRUE(parsed.ok()) << err.line << ":" << err.col << " " << err.message;
  EXPECT_EQ(Dump(parsed->module, c.attributes), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Pyast, DumpTest, ::testing::ValuesIn(kDumpCases),
                         [](const auto& tc) { return std::string(tc.param.name); });

struct ErrorCase {
  const char* source;
  int line;  // CPython's SyntaxError.lineno
  int col;   // CPython's SyntaxError.offset
  const char* message;
};

// Common syntax errors: rejected, at CPython's line and column, with its message.
const ErrorCase kErrorCases[] = {
    {"def f(:\n", 1, 7, "invalid syntax"},
    {"if x:\npass\n", 2, 1, "expected an indented block after 'if' statement on line 1"},
    {"s = \"abc\n", 1, 5, "unterminated string literal (detected at line 1)"},
    {"x = (1 +\n", 1, 5, "'(' was never closed"},
    // A later generic error yields to a bracket left open on an earlier line (CPython 3.12).
    {"x = (1,\ny = 2\n", 1, 5, "'(' was never closed"},
    {"x = [1,\ndef g(): pass\n", 1, 5, "'[' was never closed"},
    {"x = ]\n", 1, 5, "unmatched ']'"},
    {"  x = 1\n", 1, 2, "unexpected indent"},
    {"if x:\n    a\n  b\n", 3, 4, "unindent does not match any outer indentation level"},
    {"f() = 1\n", 1, 1,
     "cannot assign to function call here. Maybe you meant '==' instead of '='?"},
    {"x + 1 += 2\n", 1, 1, "'expression' is an illegal expression for augmented assignment"},
    {"def f(a=1, b): pass\n", 1, 12,
     "parameter without a default follows parameter with a default"},
    {"f(**a, *b)\n", 1, 8, "iterable argument unpacking follows keyword argument unpacking"},
    {"f(a for a in b, c)\n", 1, 3, "Generator expression must be parenthesized"},
    {"print 'x'\n", 1, 1, "Missing parentheses in call to 'print'. Did you mean print(...)?"},
    {"x = 1 +\n", 1, 8, "invalid syntax"},
    {"f\"{}\"\n", 1, 4, "f-string: valid expression required before '}'"},
    {"f\"{x!z}\"\n", 1, 6, "f-string: invalid conversion character 'z': expected 's', 'r', or 'a'"},
    {"0777\n", 1, 1,
     "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal "
     "integers"},
    {"1__0\n", 1, 2, "invalid decimal literal"},
    {"a = b'é'\n", 1, 5, "bytes can only contain ASCII literal characters"},
    {"try:\n    pass\n", 2, 9, "expected 'except' or 'finally' block"},
    {"x = (1, 2]\n", 1, 10, "closing parenthesis ']' does not match opening parenthesis '('"},
    {"class C:\n", 1, 9, "expected an indented block after class definition on line 1"},
    {"a, b: int\n", 1, 1, "only single target (not tuple) can be annotated"},
    {"lambda x=1, y: 0\n", 1, 13, "parameter without a default follows parameter with a default"},
    {"x = 'a' b'b'\n", 1, 13, "cannot mix bytes and nonbytes literals"},
    {"del f()\n", 1, 5, "cannot delete function call"},
    {"(*a)\n", 1, 2, "cannot use starred expression here"},
    {"True = 1\n", 1, 1, "cannot assign to True"},
    {"for x in range(3) print(x)\n", 1, 19, "invalid syntax"},
    {"x = $\n", 1, 5, "invalid syntax"},
};

class ErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ErrorTest, RejectedLikeCPython) {
  const ErrorCase& c = GetParam();
  SyntaxError err;
  auto parsed = ParseModule(c.source, "bad.py", &err);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(err.line, c.line);
  EXPECT_EQ(err.col, c.col);
  EXPECT_EQ(err.message, c.message);
  EXPECT_EQ(parsed.status().message(), "bad.py:" + std::to_string(err.line) + ":" +
                                           std::to_string(err.col) +
                                           ": SyntaxError: " + err.message);
}

INSTANTIATE_TEST_SUITE_P(Pyast, ErrorTest, ::testing::ValuesIn(kErrorCases));

TEST(PyastApi, TypedNodesAndWalk) {
  auto parsed = ParseModule("torch.relu(x, inplace=True)\n", "t.py");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->module->body.size(), 1u);
  auto* stmt = As<Expr>(parsed->module->body[0]);
  ASSERT_NE(stmt, nullptr);
  auto* call = As<Call>(stmt->value);
  ASSERT_NE(call, nullptr);
  auto* func = As<Attribute>(call->func);
  ASSERT_NE(func, nullptr);
  EXPECT_EQ(func->attr, "relu");
  EXPECT_EQ(As<Name>(func->value)->id, "torch");
  EXPECT_EQ(As<Name>(call->func), nullptr);
  ASSERT_EQ(call->keywords.size(), 1u);
  EXPECT_EQ(call->keywords[0]->arg, "inplace");
  EXPECT_EQ(As<Constant>(call->keywords[0]->value)->value.kind, ConstantKind::kTrue);
  EXPECT_EQ(call->pos.lineno, 1);
  EXPECT_EQ(call->pos.col_offset, 0);
  EXPECT_EQ(call->pos.end_col_offset, 27);

  std::vector<std::string> kinds;
  Walk(parsed->module, [&](Node* n) {
    kinds.push_back(KindName(n->kind));
    return true;
  });
  std::vector<std::string> want = {"Module", "Expr", "Call",    "Attribute",
                                   "Name",   "Name", "keyword", "Constant"};
  EXPECT_EQ(kinds, want);

  int children = 0;
  ForEachChild(call, [&](Node*) { ++children; });
  EXPECT_EQ(children, 3);  // func, one arg, one keyword
}

TEST(PyastApi, ConstantValues) {
  auto parsed = ParseModule("x = (0x10, 2.5, 3j, 'é', b'\\x01', None, ...)\n", "t.py");
  ASSERT_TRUE(parsed.ok());
  auto* tuple = As<Tuple>(As<Assign>(parsed->module->body[0])->value);
  ASSERT_NE(tuple, nullptr);
  auto value = [&](int i) { return As<Constant>(tuple->elts[i])->value; };
  EXPECT_EQ(value(0).kind, ConstantKind::kInt);
  EXPECT_EQ(value(0).text, "16");
  EXPECT_EQ(value(1).kind, ConstantKind::kFloat);
  EXPECT_EQ(value(1).number, 2.5);
  EXPECT_EQ(value(2).kind, ConstantKind::kComplex);
  EXPECT_EQ(value(2).number, 3.0);
  EXPECT_EQ(value(3).text, "\xc3\xa9");
  EXPECT_EQ(value(4).kind, ConstantKind::kBytes);
  EXPECT_EQ(value(4).text, std::string_view("\x01", 1));
  EXPECT_EQ(value(5).kind, ConstantKind::kNone);
  EXPECT_EQ(value(6).kind, ConstantKind::kEllipsis);
}

TEST(PyastRobustness, InvalidUtf8IsSyntaxError) {
  SyntaxError err;
  auto parsed = ParseModule("x = '\xff'\n", "t.py", &err);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(err.line, 1);
  EXPECT_NE(err.message.find("utf-8"), std::string::npos);
}

TEST(PyastRobustness, NulByteIsSyntaxError) {
  SyntaxError err;
  auto parsed = ParseModule(std::string_view("x = 1\0\n", 7), "t.py", &err);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(err.message, "source code cannot contain null bytes");
}

TEST(PyastRobustness, DeepNestingIsBoundedError) {
  // CPython: "too many nested parentheses" (tokenizer limit 200).
  std::string deep(1000, '(');
  SyntaxError err;
  EXPECT_FALSE(ParseModule(deep + "1" + std::string(1000, ')') + "\n", "t.py", &err).ok());
  EXPECT_EQ(err.message, "too many nested parentheses");
  std::string unary(100000, '-');
  EXPECT_FALSE(ParseModule(unary + "1\n", "t.py").ok());
  std::string nots;
  for (int i = 0; i < 20000; ++i) nots += "not ";
  EXPECT_FALSE(ParseModule(nots + "x\n", "t.py").ok());
}

TEST(PyastRobustness, LongFlatInputParses) {
  std::string sum = "x = 1";
  for (int i = 0; i < 20000; ++i) sum += " + 1";
  auto parsed = ParseModule(sum + "\n", "t.py");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(As<Assign>(parsed->module->body[0])->value->kind, NodeKind::kBinOp);
}

TEST(PyastEncoding, Latin1DeclarationAndBom) {
  auto latin = ParseModule("# -*- coding: latin-1 -*-\ns = '\xe9'\n", "t.py");
  ASSERT_TRUE(latin.ok());
  EXPECT_EQ(Dump(latin->module),
            "Module(body=[Assign(targets=[Name(id='s', ctx=Store())], "
            "value=Constant(value='\xc3\xa9'))], "
            "type_ignores=[])");
  auto bom = ParseModule("\xef\xbb\xbfx = 1\n", "t.py");
  ASSERT_TRUE(bom.ok());
  EXPECT_EQ(Dump(bom->module),
            "Module(body=[Assign(targets=[Name(id='x', ctx=Store())], value=Constant(value=1))], "
            "type_ignores=[])");
}

TEST(PyastLexer, TokenKindsAndPositions) {
  LexError err;
  std::string src = "if x:\n    y = f'{a!r}'\n";
  auto toks = Tokenize(src, &err);
  ASSERT_FALSE(err.failed);
  std::vector<std::string> kinds;
  for (const Token& t : toks) kinds.push_back(TokName(t.kind));
  std::vector<std::string> want = {"if", "NAME",          ":",       "NEWLINE", "INDENT",   "NAME",
                                   "=",  "FSTRING_START", "{",       "NAME",    "!",        "NAME",
                                   "}",  "FSTRING_END",   "NEWLINE", "DEDENT",  "ENDMARKER"};
  EXPECT_EQ(kinds, want);
  EXPECT_EQ(toks[7].line, 2);
  EXPECT_EQ(toks[7].col, 8);
}

}  // namespace
}  // namespace tritonrl::pyast
