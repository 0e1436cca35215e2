// Recursive-descent parser for Python 3.12 over the token array of lexer.h.
// Structure follows the grammar's rule names (statement, star_expressions,
// disjunction, ...); where the grammar needs unbounded lookahead (assignment
// targets, with-items, soft keywords) the parser parses an expression first
// and then checks it, or tries an alternative and rewinds the token index.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pyast/lexer.h"
#include "pyast/literals.h"
#include "pyast/parse.h"

namespace tritonrl::pyast {
namespace {

constexpr int kMaxDepth = 200;  // nested expressions/blocks, as CPython bounds its parser stack

class Parser {
 public:
  Parser(Arena& arena, std::string_view src, const std::vector<Token>& toks)
      : a_(arena), src_(src), t_(toks) {}

  Module* ParseFile() {
    auto* m = a_.New<Module>();
    m->kind = NodeKind::kModule;
    Builder<StmtNode> body(this);
    while (!failed_ && Peek() != Tok::kEndMarker) {
      if (Peek() == Tok::kNewline) {  // only at file start after an empty logical line
        ++p_;
        continue;
      }
      Statement(body);
    }
    if (failed_) return nullptr;
    m->body = body.Finish();
    return m;
  }

  bool failed() const { return failed_; }
  size_t furthest() const { return furthest_; }
  // The error: a specific message at a token, or "invalid syntax" at the
  // furthest token the parser examined.
  void Error(int* line, int* col, std::string* msg) const {
    if (!msg_.empty()) {
      *line = err_line_;
      *col = err_col_;
      *msg = msg_;
      return;
    }
    const Token& tok = t_[std::min(furthest_, t_.size() - 1)];
    *line = tok.line;
    *col = tok.col;
    if (tok.kind == Tok::kIndent) {
      *msg = "unexpected indent";
      *col = tok.end_col > 0 ? tok.end_col - 1 : 0;
    } else if (tok.kind == Tok::kEndMarker || tok.kind == Tok::kDedent) {
      *msg = "invalid syntax";
    } else {
      *msg = "invalid syntax";
    }
  }

 private:
  // ---- list building on a shared scratch stack (no heap churn per list) ----
  template <typename T>
  struct Builder {
    Parser* p;
    size_t mark;
    explicit Builder(Parser* parser) : p(parser), mark(parser->scratch_.size()) {}
    ~Builder() { p->scratch_.resize(mark); }
    void Push(T* v) { p->scratch_.push_back(v); }
    size_t size() const { return p->scratch_.size() - mark; }
    T* Back() const { return static_cast<T*>(p->scratch_.back()); }
    T* At(size_t i) const { return static_cast<T*>(p->scratch_[mark + i]); }
    Span<T*> Finish() {
      Span<T*> s;
      s.count = static_cast<uint32_t>(size());
      s.data = p->a_.NewArray<T*>(s.count);
      for (uint32_t i = 0; i < s.count; ++i) s.data[i] = static_cast<T*>(p->scratch_[mark + i]);
      p->scratch_.resize(mark);
      return s;
    }
  };

  // ---- token access ----
  Tok Peek(size_t k = 0) {
    size_t i = std::min(p_ + k, t_.size() - 1);
    if (i > furthest_) furthest_ = i;
    return t_[i].kind;
  }
  const Token& Cur() const { return t_[std::min(p_, t_.size() - 1)]; }
  const Token& Prev() const { return t_[p_ - 1]; }
  std::string_view Text(const Token& t) const { return src_.substr(t.start, t.end - t.start); }
  bool At(Tok k) { return Peek() == k; }
  bool Accept(Tok k) {
    if (Peek() != k) return false;
    ++p_;
    return true;
  }
  bool Expect(Tok k) {
    if (Accept(k)) return true;
    Fail();
    return false;
  }
  bool AtSoft(std::string_view word, size_t k = 0) {
    return Peek(k) == Tok::kName && Text(t_[std::min(p_ + k, t_.size() - 1)]) == word;
  }

  void Fail() { failed_ = true; }
  // Where CPython reports a missing block or clause: the token before the end
  // of input (the NEWLINE) rather than the DEDENT/ENDMARKER.
  const Token& ClauseErrorToken() const {
    const Token& c = Cur();
    if (c.kind != Tok::kDedent && c.kind != Tok::kEndMarker) return c;
    size_t i = p_;
    while (i > 0 && (t_[i - 1].kind == Tok::kDedent || t_[i - 1].kind == Tok::kIndent)) --i;
    return i > 0 ? t_[i - 1] : c;
  }
  void FailMsg(std::string msg, const Token& at) { FailAt(std::move(msg), at.line, at.col); }
  void FailAt(std::string msg, int line, int col) {
    if (failed_ && !msg_.empty()) return;
    failed_ = true;
    msg_ = std::move(msg);
    err_line_ = line;
    err_col_ = col;
  }
  void FailNode(std::string msg, const Node* n) {
    FailAt(std::move(msg), n->pos.lineno, n->pos.col_offset);
  }

  struct DepthGuard {
    Parser* p;
    explicit DepthGuard(Parser* parser) : p(parser) { ++p->depth_; }
    ~DepthGuard() { --p->depth_; }
    bool Exceeded() {
      if (p->depth_ <= kMaxDepth) return false;
      p->FailMsg("too many nested parentheses", p->Cur());
      return true;
    }
  };

  // ---- node construction ----
  template <typename T>
  T* New(const Token& start) {
    T* n = a_.New<T>();
    n->kind = T::kKind;
    n->pos.lineno = start.line;
    n->pos.col_offset = start.col;
    return n;
  }
  template <typename T>
  T* NewAt(const Node* start) {
    T* n = a_.New<T>();
    n->kind = T::kKind;
    n->pos.lineno = start->pos.lineno;
    n->pos.col_offset = start->pos.col_offset;
    return n;
  }
  template <typename T>
  T* Fin(T* n) {  // ends the node at the previous token
    const Token& e = Prev();
    n->pos.end_lineno = e.end_line;
    n->pos.end_col_offset = e.end_col;
    return n;
  }
  template <typename T>
  T* FinAt(T* n, const Node* last) {
    n->pos.end_lineno = last->pos.end_lineno;
    n->pos.end_col_offset = last->pos.end_col_offset;
    return n;
  }
  Name* MakeName(const Token& tok, ExprContext ctx) {
    auto* n = New<Name>(tok);
    n->id = Text(tok);
    n->ctx = ctx;
    n->pos.end_lineno = tok.end_line;
    n->pos.end_col_offset = tok.end_col;
    return n;
  }
  template <typename T>
  Span<T*> One(T* v) {
    Span<T*> s;
    s.data = a_.NewArray<T*>(1);
    s.data[0] = v;
    s.count = 1;
    return s;
  }
  Identifier Ident() {
    if (!At(Tok::kName)) {
      Fail();
      return {};
    }
    return Text(t_[p_++]);
  }

  // ================= statements =================

  void Statement(Builder<StmtNode>& out) {
    DepthGuard g(this);
    if (g.Exceeded()) return;
    StmtNode* s = nullptr;
    switch (Peek()) {
      case Tok::kDef:
      case Tok::kAt:
      case Tok::kClass:
        s = DecoratedOrDef();
        break;
      case Tok::kAsync:
        s = AsyncStmt();
        break;
      case Tok::kIf:
        s = IfStmt(false);
        break;
      case Tok::kWhile:
        s = WhileStmt();
        break;
      case Tok::kFor:
        s = ForStmt(nullptr);
        break;
      case Tok::kTry:
        s = TryStmt();
        break;
      case Tok::kWith:
        s = WithStmt(nullptr);
        break;
      case Tok::kIndent:
        Fail();
        return;
      case Tok::kName:
        if (AtSoft("match")) {
          if (StmtNode* m = MatchStmt()) {
            out.Push(m);
            return;
          }
          if (failed_) return;
        }
        [[fallthrough]];
      default:
        SimpleStmts(out);
        return;
    }
    if (s) out.Push(s);
  }

  void SimpleStmts(Builder<StmtNode>& out) {
    for (;;) {
      StmtNode* s = SimpleStmt();
      if (!s) return;
      out.Push(s);
      if (Accept(Tok::kSemi)) {
        if (Accept(Tok::kNewline)) return;
        continue;
      }
      if (!Accept(Tok::kNewline)) {
        auto* ex = As<Expr>(s);
        auto* name = ex ? As<Name>(ex->value) : nullptr;
        if (name && (name->id == "print" || name->id == "exec") && StartsExpression(Peek()) &&
            ex->pos.end_col_offset == name->pos.end_col_offset) {
          FailNode("Missing parentheses in call to '" + std::string(name->id) + "'. Did you mean " +
                       std::string(name->id) + "(...)?",
                   name);
        }
        Fail();
      }
      return;
    }
  }

  // block: NEWLINE INDENT statements DEDENT | simple_stmts
  Span<StmtNode*> Block(const char* what, const Token& owner) {
    Builder<StmtNode> body(this);
    if (Accept(Tok::kNewline)) {
      if (!Accept(Tok::kIndent)) {
        FailMsg(std::string("expected an indented block after ") + what + " on line " +
                    std::to_string(owner.line),
                ClauseErrorToken());
        return {};
      }
      while (!failed_ && !At(Tok::kDedent) && !At(Tok::kEndMarker)) Statement(body);
      if (!failed_) Expect(Tok::kDedent);
    } else {
      SimpleStmts(body);
    }
    if (failed_) return {};
    return body.Finish();
  }

  bool ExpectColon() {
    if (Accept(Tok::kColon)) return true;
    if (!failed_) FailMsg("expected ':'", Cur());
    return false;
  }

  StmtNode* SimpleStmt() {
    const Token& st = Cur();
    switch (Peek()) {
      case Tok::kPass:
        ++p_;
        return Fin(New<Pass>(st));
      case Tok::kBreak:
        ++p_;
        return Fin(New<Break>(st));
      case Tok::kContinue:
        ++p_;
        return Fin(New<Continue>(st));
      case Tok::kReturn: {
        ++p_;
        auto* r = New<Return>(st);
        if (!AtStmtEnd()) {
          r->value = StarExpressions();
          if (!r->value) return nullptr;
        }
        return Fin(r);
      }
      case Tok::kRaise: {
        ++p_;
        auto* r = New<Raise>(st);
        if (!AtStmtEnd()) {
          if (!(r->exc = Expression())) return nullptr;
          if (Accept(Tok::kFrom)) {
            if (!(r->cause = Expression())) return nullptr;
          }
        }
        return Fin(r);
      }
      case Tok::kGlobal:
      case Tok::kNonlocal: {
        bool global = Peek() == Tok::kGlobal;
        ++p_;
        size_t mark = idents_.size();
        do {
          Identifier id = Ident();
          if (failed_) return idents_.resize(mark), nullptr;
          idents_.push_back(id);
        } while (Accept(Tok::kComma));
        Span<Identifier> names = IdentSpan(mark);
        if (global) {
          auto* g = New<Global>(st);
          g->names = names;
          return Fin(g);
        }
        auto* n = New<Nonlocal>(st);
        n->names = names;
        return Fin(n);
      }
      case Tok::kDel: {
        ++p_;
        auto* d = New<Delete>(st);
        Builder<ExprNode> targets(this);
        do {
          if (AtStmtEnd()) break;
          ExprNode* e = BitwiseOr();
          if (!e) return nullptr;
          if (!SetContext(e, ExprContext::kDel)) return nullptr;
          targets.Push(e);
        } while (Accept(Tok::kComma));
        if (targets.size() == 0) return Fail(), nullptr;
        if (!AtStmtEnd()) return Fail(), nullptr;
        d->targets = targets.Finish();
        return Fin(d);
      }
      case Tok::kAssert: {
        ++p_;
        auto* s = New<Assert>(st);
        if (!(s->test = Expression())) return nullptr;
        if (Accept(Tok::kComma)) {
          if (!(s->msg = Expression())) return nullptr;
        }
        return Fin(s);
      }
      case Tok::kImport:
        return ImportStmt();
      case Tok::kFrom:
        return ImportFromStmt();
      case Tok::kName:
        if (AtSoft("type") && Peek(1) == Tok::kName &&
            (Peek(2) == Tok::kEqual || Peek(2) == Tok::kLSqb)) {
          return TypeAliasStmt();
        }
        break;
      default:
        break;
    }
    return ExprOrAssign();
  }

  bool AtStmtEnd() { return At(Tok::kNewline) || At(Tok::kSemi); }

  Span<Identifier> IdentSpan(size_t mark) {
    Span<Identifier> s;
    s.count = static_cast<uint32_t>(idents_.size() - mark);
    s.data = a_.NewArray<Identifier>(s.count);
    for (uint32_t i = 0; i < s.count; ++i) s.data[i] = idents_[mark + i];
    idents_.resize(mark);
    return s;
  }

  StmtNode* TypeAliasStmt() {
    const Token& st = Cur();
    ++p_;  // 'type'
    auto* ta = New<TypeAlias>(st);
    ta->name = MakeName(Cur(), ExprContext::kStore);
    ++p_;
    if (At(Tok::kLSqb)) {
      ta->type_params = TypeParams();
      if (failed_) return nullptr;
    }
    if (!Expect(Tok::kEqual)) return nullptr;
    if (!(ta->value = Expression())) return nullptr;
    return Fin(ta);
  }

  Span<TypeParamNode*> TypeParams() {
    Expect(Tok::kLSqb);
    Builder<TypeParamNode> out(this);
    while (!failed_ && !At(Tok::kRSqb)) {
      const Token& st = Cur();
      if (Accept(Tok::kStar)) {
        auto* tv = New<TypeVarTuple>(st);
        tv->name = Ident();
        if (At(Tok::kColon)) {
          FailMsg("cannot use bound with TypeVarTuple", Cur());
          return {};
        }
        out.Push(Fin(tv));
      } else if (Accept(Tok::kDoubleStar)) {
        auto* ps = New<ParamSpec>(st);
        ps->name = Ident();
        if (At(Tok::kColon)) {
          FailMsg("cannot use bound with ParamSpec", Cur());
          return {};
        }
        out.Push(Fin(ps));
      } else {
        auto* tv = New<TypeVar>(st);
        tv->name = Ident();
        if (!failed_ && Accept(Tok::kColon)) tv->bound = Expression();
        out.Push(Fin(tv));
      }
      if (failed_) return {};
      if (!Accept(Tok::kComma)) break;
    }
    if (failed_ || out.size() == 0) return Fail(), Span<TypeParamNode*>{};
    if (!Expect(Tok::kRSqb)) return {};
    return out.Finish();
  }

  Alias* DottedAlias(bool dotted) {
    const Token& st = Cur();
    auto* al = New<Alias>(st);
    if (!At(Tok::kName)) return Fail(), nullptr;
    size_t begin = Cur().start;
    ++p_;
    bool has_dot = false;
    while (dotted && At(Tok::kDot)) {
      ++p_;
      if (!At(Tok::kName)) return Fail(), nullptr;
      ++p_;
      has_dot = true;
    }
    al->name = DottedText(begin, Prev().end, has_dot);
    if (Accept(Tok::kAs)) al->asname = Ident();
    if (failed_) return nullptr;
    return Fin(al);
  }

  // "a . b" is the name "a.b": drop whitespace (and line joins) between parts.
  Identifier DottedText(size_t begin, size_t end, bool has_dot) {
    std::string_view raw = src_.substr(begin, end - begin);
    if (!has_dot) return raw;
    bool clean = true;
    for (char c : raw) {
      if (c == ' ' || c == '\t' || c == '\\' || c == '\n' || c == '\f' || c == '#') clean = false;
    }
    if (clean) return raw;
    std::string s;
    for (size_t i = 0; i < raw.size(); ++i) {
      char c = raw[i];
      if (c == '#') {
        while (i < raw.size() && raw[i] != '\n') ++i;
        continue;
      }
      if (c != ' ' && c != '\t' && c != '\\' && c != '\n' && c != '\f') s.push_back(c);
    }
    return a_.CopyString(s);
  }

  StmtNode* ImportStmt() {
    const Token& st = Cur();
    ++p_;
    auto* im = New<Import>(st);
    Builder<Alias> names(this);
    do {
      Alias* al = DottedAlias(true);
      if (!al) return nullptr;
      names.Push(al);
    } while (Accept(Tok::kComma));
    im->names = names.Finish();
    return Fin(im);
  }

  StmtNode* ImportFromStmt() {
    const Token& st = Cur();
    ++p_;
    auto* im = New<ImportFrom>(st);
    int level = 0;
    for (;;) {
      if (Accept(Tok::kDot)) {
        level += 1;
      } else if (Accept(Tok::kEllipsis)) {
        level += 3;
      } else {
        break;
      }
    }
    if (At(Tok::kName)) {
      size_t begin = Cur().start;
      ++p_;
      bool has_dot = false;
      while (At(Tok::kDot)) {
        ++p_;
        if (!At(Tok::kName)) return Fail(), nullptr;
        ++p_;
        has_dot = true;
      }
      im->module = DottedText(begin, Prev().end, has_dot);
    } else if (level == 0) {
      return Fail(), nullptr;
    }
    im->level = level;
    if (!Expect(Tok::kImport)) return nullptr;
    Builder<Alias> names(this);
    if (At(Tok::kStar)) {
      auto* al = New<Alias>(Cur());
      ++p_;
      al->name = "*";
      names.Push(Fin(al));
    } else {
      bool paren = Accept(Tok::kLPar);
      do {
        if (paren && At(Tok::kRPar) && names.size() > 0) break;
        Alias* al = DottedAlias(false);
        if (!al) return nullptr;
        names.Push(al);
      } while (Accept(Tok::kComma));
      if (paren) {
        if (!Expect(Tok::kRPar)) return nullptr;
      } else if (Prev().kind == Tok::kComma) {
        FailMsg("trailing comma not allowed without surrounding parentheses", Prev());
        return nullptr;
      }
    }
    im->names = names.Finish();
    return Fin(im);
  }

  static bool IsAugAssign(Tok k, OperatorKind* op) {
    switch (k) {
      case Tok::kPlusEqual:
        *op = OperatorKind::kAdd;
        return true;
      case Tok::kMinEqual:
        *op = OperatorKind::kSub;
        return true;
      case Tok::kStarEqual:
        *op = OperatorKind::kMult;
        return true;
      case Tok::kAtEqual:
        *op = OperatorKind::kMatMult;
        return true;
      case Tok::kSlashEqual:
        *op = OperatorKind::kDiv;
        return true;
      case Tok::kPercentEqual:
        *op = OperatorKind::kMod;
        return true;
      case Tok::kAmperEqual:
        *op = OperatorKind::kBitAnd;
        return true;
      case Tok::kVBarEqual:
        *op = OperatorKind::kBitOr;
        return true;
      case Tok::kCircumflexEqual:
        *op = OperatorKind::kBitXor;
        return true;
      case Tok::kLeftShiftEqual:
        *op = OperatorKind::kLShift;
        return true;
      case Tok::kRightShiftEqual:
        *op = OperatorKind::kRShift;
        return true;
      case Tok::kDoubleStarEqual:
        *op = OperatorKind::kPow;
        return true;
      case Tok::kDoubleSlashEqual:
        *op = OperatorKind::kFloorDiv;
        return true;
      default:
        return false;
    }
  }

  ExprNode* YieldOrStarExpressions() {
    if (At(Tok::kYield)) return YieldExpr();
    return StarExpressions();
  }

  StmtNode* ExprOrAssign() {
    size_t start_index = p_;
    const Token& st = Cur();
    ExprNode* e = YieldOrStarExpressions();
    if (!e) return nullptr;
    OperatorKind op;
    if (At(Tok::kColon)) {
      ++p_;
      auto* an = New<AnnAssign>(st);
      if (e->kind == NodeKind::kName) {
        an->simple = t_[start_index].kind == Tok::kLPar ? 0 : 1;
      } else if (e->kind != NodeKind::kAttribute && e->kind != NodeKind::kSubscript) {
        if (e->kind == NodeKind::kTuple) {
          FailNode("only single target (not tuple) can be annotated", e);
        } else if (e->kind == NodeKind::kList) {
          FailNode("only single target (not list) can be annotated", e);
        } else {
          FailNode("illegal target for annotation", e);
        }
        return nullptr;
      }
      if (!SetContext(e, ExprContext::kStore)) return nullptr;
      an->target = e;
      if (!(an->annotation = Expression())) return nullptr;
      if (Accept(Tok::kEqual)) {
        if (!(an->value = YieldOrStarExpressions())) return nullptr;
      }
      return Fin(an);
    }
    if (At(Tok::kEqual)) {
      auto* as = New<Assign>(st);
      Builder<ExprNode> targets(this);
      ExprNode* value = e;
      while (Accept(Tok::kEqual)) {
        targets.Push(value);
        if (!(value = YieldOrStarExpressions())) return nullptr;
      }
      // CPython suggests '==' for `target = value` with one '='.
      bool maybe_eq = targets.size() == 1;
      for (size_t i = 0; i < targets.size(); ++i) {
        if (!SetContext(targets.At(i), ExprContext::kStore, maybe_eq)) return nullptr;
      }
      as->targets = targets.Finish();
      as->value = value;
      return Fin(as);
    }
    if (IsAugAssign(Peek(), &op)) {
      if (e->kind != NodeKind::kName && e->kind != NodeKind::kAttribute &&
          e->kind != NodeKind::kSubscript) {
        FailNode(std::string("'") + ExprDescription(e) +
                     "' is an illegal expression for augmented assignment",
                 e);
        return nullptr;
      }
      ++p_;
      SetContext(e, ExprContext::kStore);
      auto* aug = New<AugAssign>(st);
      aug->target = e;
      aug->op = op;
      if (!(aug->value = YieldOrStarExpressions())) return nullptr;
      return Fin(aug);
    }
    auto* ex = New<Expr>(st);
    ex->value = e;
    return Fin(ex);
  }

  static const char* ExprDescription(const ExprNode* e) {
    switch (e->kind) {
      case NodeKind::kBoolOp:
      case NodeKind::kBinOp:
      case NodeKind::kUnaryOp:
        return "expression";
      case NodeKind::kNamedExpr:
        return "named expression";
      case NodeKind::kLambda:
        return "lambda";
      case NodeKind::kIfExp:
        return "conditional expression";
      case NodeKind::kDict:
        return "dict literal";
      case NodeKind::kSet:
        return "set display";
      case NodeKind::kListComp:
        return "list comprehension";
      case NodeKind::kSetComp:
        return "set comprehension";
      case NodeKind::kDictComp:
        return "dict comprehension";
      case NodeKind::kGeneratorExp:
        return "generator expression";
      case NodeKind::kAwait:
        return "await expression";
      case NodeKind::kYield:
      case NodeKind::kYieldFrom:
        return "yield expression";
      case NodeKind::kCompare:
        return "comparison";
      case NodeKind::kCall:
        return "function call";
      case NodeKind::kFormattedValue:
      case NodeKind::kJoinedStr:
        return "f-string expression";
      case NodeKind::kConstant: {
        auto* c = static_cast<const Constant*>(e);
        switch (c->value.kind) {
          case ConstantKind::kNone:
            return "None";
          case ConstantKind::kTrue:
            return "True";
          case ConstantKind::kFalse:
            return "False";
          case ConstantKind::kEllipsis:
            return "ellipsis";
          default:
            return "literal";
        }
      }
      case NodeKind::kTuple:
        return "tuple";
      case NodeKind::kList:
        return "list";
      case NodeKind::kStarred:
        return "starred";
      case NodeKind::kName:
        return "name";
      case NodeKind::kAttribute:
        return "attribute";
      case NodeKind::kSubscript:
        return "subscript";
      default:
        return "expression";
    }
  }

  // Turns a parsed expression into an assignment/deletion target.
  bool SetContext(ExprNode* e, ExprContext ctx, bool maybe_eq = false) {
    switch (e->kind) {
      case NodeKind::kName:
        static_cast<Name*>(e)->ctx = ctx;
        return true;
      case NodeKind::kAttribute:
        static_cast<Attribute*>(e)->ctx = ctx;
        return true;
      case NodeKind::kSubscript:
        static_cast<Subscript*>(e)->ctx = ctx;
        return true;
      case NodeKind::kStarred:
        if (ctx == ExprContext::kDel) break;
        static_cast<Starred*>(e)->ctx = ctx;
        return SetContext(static_cast<Starred*>(e)->value, ctx);
      case NodeKind::kTuple:
      case NodeKind::kList: {
        Span<ExprNode*> elts = e->kind == NodeKind::kTuple ? static_cast<Tuple*>(e)->elts
                                                           : static_cast<List*>(e)->elts;
        if (e->kind == NodeKind::kTuple) {
          static_cast<Tuple*>(e)->ctx = ctx;
        } else {
          static_cast<List*>(e)->ctx = ctx;
        }
        for (ExprNode* x : elts) {
          if (!SetContext(x, ctx)) return false;
        }
        return true;
      }
      default:
        break;
    }
    const char* verb = ctx == ExprContext::kDel ? "delete" : "assign to";
    const char* what = ExprDescription(e);
    std::string msg = std::string("cannot ") + verb + " " + what;
    bool bitwise_or_level =
        e->kind != NodeKind::kCompare && e->kind != NodeKind::kBoolOp &&
        e->kind != NodeKind::kIfExp && e->kind != NodeKind::kLambda &&
        e->kind != NodeKind::kNamedExpr && e->kind != NodeKind::kYield &&
        e->kind != NodeKind::kYieldFrom &&
        !(e->kind == NodeKind::kUnaryOp && static_cast<UnaryOp*>(e)->op == UnaryOpKind::kNot) &&
        !(e->kind == NodeKind::kConstant &&
          static_cast<Constant*>(e)->value.kind <= ConstantKind::kFalse);
    if (maybe_eq && bitwise_or_level && At(Tok::kNewline)) {
      msg += " here. Maybe you meant '==' instead of '='?";
    }
    if (ctx == ExprContext::kDel) msg = std::string("cannot delete ") + what;
    FailNode(msg, e);
    return false;
  }

  // ---- compound statements ----

  StmtNode* DecoratedOrDef() {
    Builder<ExprNode> decos(this);
    while (At(Tok::kAt)) {
      ++p_;
      ExprNode* d = NamedExpression();
      if (!d) return nullptr;
      decos.Push(d);
      if (!Expect(Tok::kNewline)) return nullptr;
    }
    Span<ExprNode*> decorators = decos.Finish();
    if (At(Tok::kDef)) return FuncDef(nullptr, decorators);
    if (At(Tok::kClass)) return ClassDefStmt(decorators);
    if (At(Tok::kAsync) && Peek(1) == Tok::kDef) {
      const Token& st = Cur();
      ++p_;
      return FuncDef(&st, decorators);
    }
    return Fail(), nullptr;
  }

  StmtNode* AsyncStmt() {
    const Token& st = Cur();
    ++p_;
    switch (Peek()) {
      case Tok::kDef:
        return FuncDef(&st, {});
      case Tok::kWith:
        return WithStmt(&st);
      case Tok::kFor:
        return ForStmt(&st);
      default:
        return Fail(), nullptr;
    }
  }

  StmtNode* FuncDef(const Token* async_tok, Span<ExprNode*> decorators) {
    const Token& def_tok = Cur();
    const Token& st = async_tok ? *async_tok : def_tok;
    ++p_;  // def
    Identifier name = Ident();
    if (failed_) return nullptr;
    Span<TypeParamNode*> tparams;
    if (At(Tok::kLSqb)) {
      tparams = TypeParams();
      if (failed_) return nullptr;
    }
    if (!Expect(Tok::kLPar)) return nullptr;
    Arguments* args = Parameters(false);
    if (!args || !Expect(Tok::kRPar)) return nullptr;
    ExprNode* returns = nullptr;
    if (Accept(Tok::kRArrow)) {
      if (!(returns = Expression())) return nullptr;
    }
    if (!ExpectColon()) return nullptr;
    Span<StmtNode*> body = Block("function definition", def_tok);
    if (failed_) return nullptr;
    auto fill = [&](auto* f) {
      f->name = name;
      f->args = args;
      f->body = body;
      f->decorator_list = decorators;
      f->returns = returns;
      f->type_params = tparams;
      return FinAt(f, body[body.size() - 1]);
    };
    if (async_tok) return fill(New<AsyncFunctionDef>(st));
    return fill(New<FunctionDef>(st));
  }

  StmtNode* ClassDefStmt(Span<ExprNode*> decorators) {
    const Token& st = Cur();
    ++p_;
    auto* c = New<ClassDef>(st);
    c->name = Ident();
    if (failed_) return nullptr;
    if (At(Tok::kLSqb)) {
      c->type_params = TypeParams();
      if (failed_) return nullptr;
    }
    if (Accept(Tok::kLPar)) {
      if (!CallArguments(&c->bases, &c->keywords, nullptr)) return nullptr;
    }
    if (!Expect(Tok::kColon)) return nullptr;
    c->body = Block("class definition", st);
    if (failed_) return nullptr;
    c->decorator_list = decorators;
    return FinAt(c, c->body[c->body.size() - 1]);
  }

  StmtNode* IfStmt(bool elif) {
    const Token& st = Cur();
    ++p_;
    auto* s = New<If>(st);
    if (!(s->test = NamedExpression())) return nullptr;
    if (!Expect(Tok::kColon)) return nullptr;
    s->body = Block(elif ? "'elif' statement" : "'if' statement", st);
    if (failed_) return nullptr;
    StmtNode* last = s->body[s->body.size() - 1];
    if (At(Tok::kElif)) {
      StmtNode* e = IfStmt(true);
      if (!e) return nullptr;
      s->orelse = One(e);
      last = e;
    } else if (At(Tok::kElse)) {
      const Token& et = Cur();
      ++p_;
      if (!Expect(Tok::kColon)) return nullptr;
      s->orelse = Block("'else' statement", et);
      if (failed_) return nullptr;
      last = s->orelse[s->orelse.size() - 1];
    }
    return FinAt(s, last);
  }

  bool ElseBlock(Span<StmtNode*>* orelse, StmtNode** last) {
    if (!At(Tok::kElse)) return true;
    const Token& et = Cur();
    ++p_;
    if (!Expect(Tok::kColon)) return false;
    *orelse = Block("'else' statement", et);
    if (failed_) return false;
    *last = (*orelse)[orelse->size() - 1];
    return true;
  }

  StmtNode* WhileStmt() {
    const Token& st = Cur();
    ++p_;
    auto* s = New<While>(st);
    if (!(s->test = NamedExpression())) return nullptr;
    if (!Expect(Tok::kColon)) return nullptr;
    s->body = Block("'while' statement", st);
    if (failed_) return nullptr;
    StmtNode* last = s->body[s->body.size() - 1];
    if (!ElseBlock(&s->orelse, &last)) return nullptr;
    return FinAt(s, last);
  }

  // star_targets for `for` loops and comprehensions: stops before 'in'.
  ExprNode* ForTargets() {
    const Token& st = Cur();
    Builder<ExprNode> elts(this);
    bool comma = false;
    for (;;) {
      ExprNode* e;
      if (At(Tok::kStar)) {
        const Token& s = Cur();
        ++p_;
        auto* sr = New<Starred>(s);
        if (!(sr->value = BitwiseOr())) return nullptr;
        e = Fin(sr);
      } else {
        if (!(e = BitwiseOr())) return nullptr;
      }
      elts.Push(e);
      if (!Accept(Tok::kComma)) break;
      comma = true;
      if (At(Tok::kIn)) break;
    }
    ExprNode* target;
    if (!comma) {
      target = elts.At(0);
    } else {
      auto* t = New<Tuple>(st);
      t->elts = elts.Finish();
      Fin(t);
      target = t;
    }
    if (!SetContext(target, ExprContext::kStore)) return nullptr;
    return target;
  }

  StmtNode* ForStmt(const Token* async_tok) {
    const Token& for_tok = Cur();
    const Token& st = async_tok ? *async_tok : for_tok;
    ++p_;
    ExprNode* target = ForTargets();
    if (!target) return nullptr;
    if (!Expect(Tok::kIn)) return nullptr;
    ExprNode* iter = StarExpressions();
    if (!iter || !Expect(Tok::kColon)) return nullptr;
    Span<StmtNode*> body = Block("'for' statement", for_tok);
    if (failed_) return nullptr;
    StmtNode* last = body[body.size() - 1];
    Span<StmtNode*> orelse;
    if (!ElseBlock(&orelse, &last)) return nullptr;
    auto fill = [&](auto* f) {
      f->target = target;
      f->iter = iter;
      f->body = body;
      f->orelse = orelse;
      return FinAt(f, last);
    };
    if (async_tok) return fill(New<AsyncFor>(st));
    return fill(New<For>(st));
  }

  WithItem* WithItemRule() {
    auto* w = a_.New<WithItem>();
    w->kind = NodeKind::kWithItem;
    if (!(w->context_expr = Expression())) return nullptr;
    if (Accept(Tok::kAs)) {
      ExprNode* t = ForTargetSingle();
      if (!t) return nullptr;
      w->optional_vars = t;
    }
    return w;
  }

  // A single star_target (with-item `as` target).
  ExprNode* ForTargetSingle() {
    ExprNode* e;
    if (At(Tok::kStar)) {
      const Token& s = Cur();
      ++p_;
      auto* sr = New<Starred>(s);
      if (!(sr->value = BitwiseOr())) return nullptr;
      e = Fin(sr);
    } else if (!(e = BitwiseOr())) {
      return nullptr;
    }
    if (!SetContext(e, ExprContext::kStore)) return nullptr;
    return e;
  }

  StmtNode* WithStmt(const Token* async_tok) {
    const Token& with_tok = Cur();
    const Token& st = async_tok ? *async_tok : with_tok;
    ++p_;
    Span<WithItem*> items;
    bool done = false;
    if (At(Tok::kLPar)) {
      // with ( item, item, ) :  -- tried first; falls back to an expression.
      size_t save = p_;
      size_t scratch = scratch_.size();
      ++p_;
      Builder<WithItem> b(this);
      bool ok = true;
      while (ok) {
        WithItem* w = WithItemRule();
        if (!w) {
          ok = false;
          break;
        }
        b.Push(w);
        if (!Accept(Tok::kComma)) break;
        if (At(Tok::kRPar)) break;
      }
      if (ok && Accept(Tok::kRPar) && At(Tok::kColon)) {
        items = b.Finish();
        done = true;
      } else {
        if (failed_ && !msg_.empty()) return nullptr;
        failed_ = false;
        p_ = save;
        scratch_.resize(scratch);
        b.mark = scratch;
      }
    }
    if (!done) {
      Builder<WithItem> b(this);
      do {
        WithItem* w = WithItemRule();
        if (!w) return nullptr;
        b.Push(w);
      } while (Accept(Tok::kComma));
      items = b.Finish();
    }
    if (!Expect(Tok::kColon)) return nullptr;
    Span<StmtNode*> body = Block("'with' statement", with_tok);
    if (failed_) return nullptr;
    auto fill = [&](auto* w) {
      w->items = items;
      w->body = body;
      return FinAt(w, body[body.size() - 1]);
    };
    if (async_tok) return fill(New<AsyncWith>(st));
    return fill(New<With>(st));
  }

  StmtNode* TryStmt() {
    const Token& st = Cur();
    ++p_;
    if (!ExpectColon()) return nullptr;
    Span<StmtNode*> body = Block("'try' statement", st);
    if (failed_) return nullptr;
    StmtNode* last_stmt = body[body.size() - 1];
    Node* last = last_stmt;
    Builder<ExceptHandler> handlers(this);
    int star_kind = -1;  // -1 unknown, 0 except, 1 except*
    while (At(Tok::kExcept)) {
      const Token& et = Cur();
      ++p_;
      int star = Accept(Tok::kStar) ? 1 : 0;
      if (star_kind >= 0 && star != star_kind) {
        FailMsg("cannot have both 'except' and 'except*' on the same 'try'", et);
        return nullptr;
      }
      star_kind = star;
      auto* h = New<ExceptHandler>(et);
      if (!At(Tok::kColon)) {
        if (!(h->type = Expression())) return nullptr;
        if (At(Tok::kComma)) {
          FailMsg("multiple exception types must be parenthesized", t_[p_ - 1]);
          return nullptr;
        }
        if (Accept(Tok::kAs)) {
          h->name = Ident();
          if (failed_) return nullptr;
        }
      } else if (star) {
        FailMsg("expected one or more exception types", Cur());
        return nullptr;
      }
      if (!Expect(Tok::kColon)) return nullptr;
      h->body = Block(star ? "'except*' statement" : "'except' statement", et);
      if (failed_) return nullptr;
      FinAt(h, h->body[h->body.size() - 1]);
      handlers.Push(h);
      last = h;
    }
    Span<StmtNode*> orelse, finalbody;
    if (At(Tok::kElse)) {
      if (handlers.size() == 0) return Fail(), nullptr;
      StmtNode* l = nullptr;
      if (!ElseBlock(&orelse, &l)) return nullptr;
      last = l;
    }
    if (At(Tok::kFinally)) {
      const Token& ft = Cur();
      ++p_;
      if (!ExpectColon()) return nullptr;
      finalbody = Block("'finally' statement", ft);
      if (failed_) return nullptr;
      last = finalbody[finalbody.size() - 1];
    }
    if (handlers.size() == 0 && finalbody.empty()) {
      FailMsg("expected 'except' or 'finally' block", ClauseErrorToken());
      return nullptr;
    }
    auto fill = [&](auto* t) {
      t->body = body;
      t->handlers = handlers.Finish();
      t->orelse = orelse;
      t->finalbody = finalbody;
      t->pos.end_lineno = last->pos.end_lineno;
      t->pos.end_col_offset = last->pos.end_col_offset;
      return t;
    };
    if (star_kind == 1) return fill(New<TryStar>(st));
    return fill(New<Try>(st));
  }

  // ---- match statement (soft keyword) ----

  StmtNode* MatchStmt() {
    const Token& st = Cur();
    size_t save = p_;
    size_t scratch = scratch_.size();
    ++p_;
    // subject: star_named_expression ',' star_named_expressions? | named_expression
    ExprNode* subject = nullptr;
    {
      const Token& sst = Cur();
      Builder<ExprNode> elts(this);
      bool comma = false;
      ExprNode* first = StarNamedExpression();
      if (first) {
        elts.Push(first);
        while (Accept(Tok::kComma)) {
          comma = true;
          if (At(Tok::kColon)) break;
          ExprNode* e = StarNamedExpression();
          if (!e) {
            first = nullptr;
            break;
          }
          elts.Push(e);
        }
      }
      if (first) {
        if (comma) {
          auto* t = New<Tuple>(sst);
          t->elts = elts.Finish();
          Fin(t);
          subject = t;
        } else if (first->kind == NodeKind::kStarred) {
          subject = nullptr;
        } else {
          subject = first;
        }
      }
    }
    if (!subject || !At(Tok::kColon) || Peek(1) != Tok::kNewline) {
      if (failed_ && !msg_.empty()) return nullptr;
      failed_ = false;
      p_ = save;
      scratch_.resize(scratch);
      return nullptr;
    }
    ++p_;  // ':'
    ++p_;  // NEWLINE
    if (!Accept(Tok::kIndent)) {
      FailMsg(
          "expected an indented block after 'match' statement on line " + std::to_string(st.line),
          Cur());
      return nullptr;
    }
    auto* m = New<Match>(st);
    m->subject = subject;
    Builder<MatchCase> cases(this);
    while (AtSoft("case")) {
      MatchCase* c = CaseBlock();
      if (!c) return nullptr;
      cases.Push(c);
    }
    if (cases.size() == 0) return Fail(), nullptr;
    if (!Expect(Tok::kDedent)) return nullptr;
    m->cases = cases.Finish();
    MatchCase* lc = m->cases[m->cases.size() - 1];
    return FinAt(m, lc->body[lc->body.size() - 1]);
  }

  MatchCase* CaseBlock() {
    const Token& ct = Cur();
    ++p_;
    auto* c = a_.New<MatchCase>();
    c->kind = NodeKind::kMatchCase;
    if (!(c->pattern = Patterns())) return nullptr;
    if (Accept(Tok::kIf)) {
      if (!(c->guard = NamedExpression())) return nullptr;
    }
    if (!Expect(Tok::kColon)) return nullptr;
    c->body = Block("'case' statement", ct);
    if (failed_) return nullptr;
    return c;
  }

  // patterns: open_sequence_pattern | pattern
  PatternNode* Patterns() {
    const Token& st = Cur();
    PatternNode* first = MaybeStarPattern();
    if (!first) return nullptr;
    if (!At(Tok::kComma)) {
      if (first->kind == NodeKind::kMatchStar) {
        auto* seq = New<MatchSequence>(st);
        seq->patterns = One(first);
        return FinAt(seq, first);
      }
      return first;
    }
    Builder<PatternNode> pats(this);
    pats.Push(first);
    while (Accept(Tok::kComma)) {
      if (At(Tok::kColon) || At(Tok::kIf)) break;
      PatternNode* p = MaybeStarPattern();
      if (!p) return nullptr;
      pats.Push(p);
    }
    auto* seq = New<MatchSequence>(st);
    seq->patterns = pats.Finish();
    return Fin(seq);
  }

  PatternNode* MaybeStarPattern() {
    if (At(Tok::kStar)) {
      const Token& st = Cur();
      ++p_;
      auto* s = New<MatchStar>(st);
      Identifier n = Ident();
      if (failed_) return nullptr;
      if (n != "_") s->name = n;
      return Fin(s);
    }
    return Pattern();
  }

  // pattern: or_pattern ['as' NAME]
  PatternNode* Pattern() {
    DepthGuard g(this);
    if (g.Exceeded()) return nullptr;
    const Token& st = Cur();
    PatternNode* first = ClosedPattern();
    if (!first) return nullptr;
    PatternNode* result = first;
    if (At(Tok::kVBar)) {
      Builder<PatternNode> alts(this);
      alts.Push(first);
      while (Accept(Tok::kVBar)) {
        PatternNode* p = ClosedPattern();
        if (!p) return nullptr;
        alts.Push(p);
      }
      auto* o = New<MatchOr>(st);
      o->patterns = alts.Finish();
      result = Fin(o);
    }
    if (Accept(Tok::kAs)) {
      const Token& nt = Cur();
      Identifier n = Ident();
      if (failed_) return nullptr;
      if (n == "_") {
        FailMsg("cannot use '_' as a target", nt);
        return nullptr;
      }
      auto* as = New<MatchAs>(st);
      as->pattern = result;
      as->name = n;
      return Fin(as);
    }
    return result;
  }

  // A signed number or complex literal for a literal pattern.
  ExprNode* SignedNumber() {
    const Token& st = Cur();
    bool neg = Accept(Tok::kMinus);
    if (!At(Tok::kNumber)) return Fail(), nullptr;
    ExprNode* num = Atom();
    if (!num) return nullptr;
    if (neg) {
      auto* u = New<UnaryOp>(st);
      u->op = UnaryOpKind::kUSub;
      u->operand = num;
      num = Fin(u);
    }
    if (At(Tok::kPlus) || At(Tok::kMinus)) {
      bool plus = At(Tok::kPlus);
      ++p_;
      if (!At(Tok::kNumber)) return Fail(), nullptr;
      ExprNode* im = Atom();
      if (!im) return nullptr;
      auto* c = static_cast<Constant*>(im);
      if (c->value.kind != ConstantKind::kComplex) {
        FailNode("imaginary number required in complex literal", im);
        return nullptr;
      }
      auto* b = New<BinOp>(st);
      b->left = num;
      b->op = plus ? OperatorKind::kAdd : OperatorKind::kSub;
      b->right = im;
      return Fin(b);
    }
    return num;
  }

  // name_or_attr: NAME ('.' NAME)*
  ExprNode* NameOrAttr() {
    const Token& st = Cur();
    ExprNode* e = MakeName(st, ExprContext::kLoad);
    ++p_;
    while (At(Tok::kDot)) {
      ++p_;
      auto* at = New<Attribute>(st);
      at->value = e;
      at->attr = Ident();
      if (failed_) return nullptr;
      at->ctx = ExprContext::kLoad;
      e = Fin(at);
    }
    return e;
  }

  PatternNode* ClosedPattern() {
    const Token& st = Cur();
    switch (Peek()) {
      case Tok::kNone:
      case Tok::kTrue:
      case Tok::kFalse: {
        auto* s = New<MatchSingleton>(st);
        s->value.kind = Peek() == Tok::kNone   ? ConstantKind::kNone
                        : Peek() == Tok::kTrue ? ConstantKind::kTrue
                                               : ConstantKind::kFalse;
        ++p_;
        return Fin(s);
      }
      case Tok::kMinus:
      case Tok::kNumber: {
        ExprNode* v = SignedNumber();
        if (!v) return nullptr;
        auto* mv = New<MatchValue>(st);
        mv->value = v;
        return Fin(mv);
      }
      case Tok::kString:
      case Tok::kFStringStart: {
        ExprNode* v = Strings();
        if (!v) return nullptr;
        if (v->kind == NodeKind::kJoinedStr) {
          FailNode("patterns may only match literals and attribute lookups", v);
          return nullptr;
        }
        auto* mv = New<MatchValue>(st);
        mv->value = v;
        return Fin(mv);
      }
      case Tok::kName: {
        if (Peek(1) != Tok::kDot && Peek(1) != Tok::kLPar) {
          Identifier n = Text(st);
          ++p_;
          auto* as = New<MatchAs>(st);
          if (n != "_") as->name = n;
          return Fin(as);
        }
        ExprNode* e = NameOrAttr();
        if (!e) return nullptr;
        if (At(Tok::kLPar)) return ClassPattern(st, e);
        auto* mv = New<MatchValue>(st);
        mv->value = e;
        return Fin(mv);
      }
      case Tok::kLPar: {
        ++p_;
        if (Accept(Tok::kRPar)) {
          auto* seq = New<MatchSequence>(st);
          return Fin(seq);
        }
        PatternNode* first = MaybeStarPattern();
        if (!first) return nullptr;
        if (Accept(Tok::kRPar)) {
          if (first->kind == NodeKind::kMatchStar) {
            auto* seq = New<MatchSequence>(st);
            seq->patterns = One(first);
            return Fin(seq);
          }
          return first;  // group pattern
        }
        Builder<PatternNode> pats(this);
        pats.Push(first);
        while (Accept(Tok::kComma)) {
          if (At(Tok::kRPar)) break;
          PatternNode* p = MaybeStarPattern();
          if (!p) return nullptr;
          pats.Push(p);
        }
        if (!Expect(Tok::kRPar)) return nullptr;
        auto* seq = New<MatchSequence>(st);
        seq->patterns = pats.Finish();
        return Fin(seq);
      }
      case Tok::kLSqb: {
        ++p_;
        Builder<PatternNode> pats(this);
        while (!At(Tok::kRSqb)) {
          PatternNode* p = MaybeStarPattern();
          if (!p) return nullptr;
          pats.Push(p);
          if (!Accept(Tok::kComma)) break;
        }
        if (!Expect(Tok::kRSqb)) return nullptr;
        auto* seq = New<MatchSequence>(st);
        seq->patterns = pats.Finish();
        return Fin(seq);
      }
      case Tok::kLBrace:
        return MappingPattern();
      default:
        return Fail(), nullptr;
    }
  }

  PatternNode* ClassPattern(const Token& st, ExprNode* cls) {
    ++p_;  // (
    auto* c = New<MatchClass>(st);
    c->cls = cls;
    std::vector<PatternNode*> pos, kwp;
    std::vector<Identifier> names;
    while (!At(Tok::kRPar)) {
      if (At(Tok::kName) && Peek(1) == Tok::kEqual) {
        names.push_back(Text(Cur()));
        p_ += 2;
        PatternNode* p = Pattern();
        if (!p) return nullptr;
        kwp.push_back(p);
      } else {
        const Token& pt = Cur();
        PatternNode* p = Pattern();
        if (!p) return nullptr;
        if (!kwp.empty()) {
          FailMsg("positional patterns follow keyword patterns", pt);
          return nullptr;
        }
        pos.push_back(p);
      }
      if (!Accept(Tok::kComma)) break;
    }
    if (!Expect(Tok::kRPar)) return nullptr;
    c->patterns = CopyVec(pos);
    c->kwd_patterns = CopyVec(kwp);
    c->kwd_attrs = CopyVec(names);
    return Fin(c);
  }

  template <typename T>
  Span<T> CopyVec(const std::vector<T>& v) {
    Span<T> s;
    s.count = static_cast<uint32_t>(v.size());
    s.data = a_.NewArray<T>(v.size());
    for (size_t i = 0; i < v.size(); ++i) s.data[i] = v[i];
    return s;
  }

  PatternNode* MappingPattern() {
    const Token& st = Cur();
    ++p_;  // {
    auto* m = New<MatchMapping>(st);
    Builder<ExprNode> keys(this);
    std::vector<PatternNode*> values;
    while (!At(Tok::kRBrace)) {
      if (Accept(Tok::kDoubleStar)) {
        m->rest = Ident();
        if (failed_) return nullptr;
        Accept(Tok::kComma);
        break;
      }
      ExprNode* key;
      switch (Peek()) {
        case Tok::kNone:
        case Tok::kTrue:
        case Tok::kFalse:
        case Tok::kNumber:
        case Tok::kMinus:
          if (At(Tok::kNumber) || At(Tok::kMinus)) {
            key = SignedNumber();
          } else {
            key = Atom();
          }
          break;
        case Tok::kString:
        case Tok::kFStringStart:
          key = Strings();
          if (key && key->kind == NodeKind::kJoinedStr) {
            FailNode("patterns may only match literals and attribute lookups", key);
            return nullptr;
          }
          break;
        case Tok::kName:
          if (Peek(1) != Tok::kDot) return Fail(), nullptr;
          key = NameOrAttr();
          break;
        default:
          return Fail(), nullptr;
      }
      if (!key || !Expect(Tok::kColon)) return nullptr;
      PatternNode* v = Pattern();
      if (!v) return nullptr;
      keys.Push(key);
      values.push_back(v);
      if (!Accept(Tok::kComma)) break;
    }
    if (!Expect(Tok::kRBrace)) return nullptr;
    m->keys = keys.Finish();
    m->patterns.count = static_cast<uint32_t>(values.size());
    m->patterns.data = a_.NewArray<PatternNode*>(values.size());
    for (size_t i = 0; i < values.size(); ++i) m->patterns.data[i] = values[i];
    return Fin(m);
  }

  // ================= expressions =================

  ExprNode* StarExpressions() {
    const Token& st = Cur();
    ExprNode* first = StarExpression();
    if (!first) return nullptr;
    if (!At(Tok::kComma)) return first;
    Builder<ExprNode> elts(this);
    elts.Push(first);
    while (Accept(Tok::kComma)) {
      if (!StartsExpression(Peek())) break;
      ExprNode* e = StarExpression();
      if (!e) return nullptr;
      elts.Push(e);
    }
    auto* t = New<Tuple>(st);
    t->elts = elts.Finish();
    t->ctx = ExprContext::kLoad;
    return Fin(t);
  }

  static bool StartsExpression(Tok k) {
    switch (k) {
      case Tok::kName:
      case Tok::kNumber:
      case Tok::kString:
      case Tok::kFStringStart:
      case Tok::kLPar:
      case Tok::kLSqb:
      case Tok::kLBrace:
      case Tok::kMinus:
      case Tok::kPlus:
      case Tok::kTilde:
      case Tok::kStar:
      case Tok::kNot:
      case Tok::kLambda:
      case Tok::kAwait:
      case Tok::kNone:
      case Tok::kTrue:
      case Tok::kFalse:
      case Tok::kEllipsis:
        return true;
      default:
        return false;
    }
  }

  ExprNode* StarExpression() {
    if (At(Tok::kStar)) {
      const Token& st = Cur();
      ++p_;
      auto* s = New<Starred>(st);
      if (!(s->value = BitwiseOr())) return nullptr;
      s->ctx = ExprContext::kLoad;
      return Fin(s);
    }
    return Expression();
  }

  ExprNode* StarNamedExpression() {
    if (At(Tok::kStar)) {
      const Token& st = Cur();
      ++p_;
      auto* s = New<Starred>(st);
      if (!(s->value = BitwiseOr())) return nullptr;
      s->ctx = ExprContext::kLoad;
      return Fin(s);
    }
    return NamedExpression();
  }

  ExprNode* NamedExpression() {
    if (At(Tok::kName) && Peek(1) == Tok::kColonEqual) {
      const Token& st = Cur();
      auto* n = New<NamedExpr>(st);
      n->target = MakeName(st, ExprContext::kStore);
      p_ += 2;
      if (!(n->value = Expression())) return nullptr;
      return Fin(n);
    }
    ExprNode* e = Expression();
    if (e && At(Tok::kColonEqual)) {
      FailNode(std::string("cannot use assignment expressions with ") + ExprDescription(e), e);
      return nullptr;
    }
    return e;
  }

  ExprNode* Expression() {
    DepthGuard g(this);
    if (g.Exceeded()) return nullptr;
    if (At(Tok::kLambda)) return LambdaDef();
    const Token& st = Cur();
    ExprNode* body = Disjunction();
    if (!body) return nullptr;
    if (!At(Tok::kIf)) return body;
    ++p_;
    auto* ie = New<IfExp>(st);
    ie->body = body;
    if (!(ie->test = Disjunction())) return nullptr;
    if (!Accept(Tok::kElse)) {
      FailMsg("expected 'else' after 'if' expression", st);
      return nullptr;
    }
    if (!(ie->orelse = Expression())) return nullptr;
    return Fin(ie);
  }

  ExprNode* LambdaDef() {
    const Token& st = Cur();
    ++p_;
    auto* l = New<Lambda>(st);
    if (!(l->args = Parameters(true))) return nullptr;
    if (!Expect(Tok::kColon)) return nullptr;
    if (!(l->body = Expression())) return nullptr;
    return Fin(l);
  }

  ExprNode* BoolChain(Tok tok, BoolOpKind kind, ExprNode* (Parser::*sub)()) {
    const Token& st = Cur();
    ExprNode* first = (this->*sub)();
    if (!first || !At(tok)) return first;
    Builder<ExprNode> vals(this);
    vals.Push(first);
    while (Accept(tok)) {
      ExprNode* e = (this->*sub)();
      if (!e) return nullptr;
      vals.Push(e);
    }
    auto* b = New<BoolOp>(st);
    b->op = kind;
    b->values = vals.Finish();
    return Fin(b);
  }
  ExprNode* Disjunction() { return BoolChain(Tok::kOr, BoolOpKind::kOr, &Parser::Conjunction); }
  ExprNode* Conjunction() { return BoolChain(Tok::kAnd, BoolOpKind::kAnd, &Parser::Inversion); }

  ExprNode* Inversion() {
    if (At(Tok::kNot)) {
      DepthGuard g(this);
      if (g.Exceeded()) return nullptr;
      const Token& st = Cur();
      ++p_;
      auto* u = New<UnaryOp>(st);
      u->op = UnaryOpKind::kNot;
      if (!(u->operand = Inversion())) return nullptr;
      return Fin(u);
    }
    return Comparison();
  }

  bool CompOp(CmpOpKind* op) {
    switch (Peek()) {
      case Tok::kEqEqual:
        *op = CmpOpKind::kEq;
        break;
      case Tok::kNotEqual:
        *op = CmpOpKind::kNotEq;
        break;
      case Tok::kLess:
        *op = CmpOpKind::kLt;
        break;
      case Tok::kLessEqual:
        *op = CmpOpKind::kLtE;
        break;
      case Tok::kGreater:
        *op = CmpOpKind::kGt;
        break;
      case Tok::kGreaterEqual:
        *op = CmpOpKind::kGtE;
        break;
      case Tok::kIn:
        *op = CmpOpKind::kIn;
        break;
      case Tok::kIs:
        if (Peek(1) == Tok::kNot) {
          *op = CmpOpKind::kIsNot;
          p_ += 2;
          return true;
        }
        *op = CmpOpKind::kIs;
        break;
      case Tok::kNot:
        if (Peek(1) == Tok::kIn) {
          *op = CmpOpKind::kNotIn;
          p_ += 2;
          return true;
        }
        return false;
      default:
        return false;
    }
    ++p_;
    return true;
  }

  ExprNode* Comparison() {
    const Token& st = Cur();
    ExprNode* left = BitwiseOr();
    if (!left) return nullptr;
    CmpOpKind op;
    if (!CompOp(&op)) return left;
    size_t mark = cmpops_.size();
    Builder<ExprNode> comps(this);
    do {
      cmpops_.push_back(op);
      ExprNode* r = BitwiseOr();
      if (!r) return cmpops_.resize(mark), nullptr;
      comps.Push(r);
    } while (CompOp(&op));
    auto* c = New<Compare>(st);
    c->left = left;
    c->ops.count = static_cast<uint32_t>(cmpops_.size() - mark);
    c->ops.data = a_.NewArray<CmpOpKind>(c->ops.count);
    for (uint32_t i = 0; i < c->ops.count; ++i) c->ops.data[i] = cmpops_[mark + i];
    cmpops_.resize(mark);
    c->comparators = comps.Finish();
    return Fin(c);
  }

  // Left-associative binary levels, tightest last.
  enum Level { kBitOr, kBitXor, kBitAnd, kShift, kSum, kTerm };

  bool BinOpAt(Level level, OperatorKind* op) {
    Tok k = Peek();
    switch (level) {
      case kBitOr:
        if (k == Tok::kVBar) return *op = OperatorKind::kBitOr, true;
        return false;
      case kBitXor:
        if (k == Tok::kCircumflex) return *op = OperatorKind::kBitXor, true;
        return false;
      case kBitAnd:
        if (k == Tok::kAmper) return *op = OperatorKind::kBitAnd, true;
        return false;
      case kShift:
        if (k == Tok::kLeftShift) return *op = OperatorKind::kLShift, true;
        if (k == Tok::kRightShift) return *op = OperatorKind::kRShift, true;
        return false;
      case kSum:
        if (k == Tok::kPlus) return *op = OperatorKind::kAdd, true;
        if (k == Tok::kMinus) return *op = OperatorKind::kSub, true;
        return false;
      case kTerm:
        switch (k) {
          case Tok::kStar:
            return *op = OperatorKind::kMult, true;
          case Tok::kSlash:
            return *op = OperatorKind::kDiv, true;
          case Tok::kDoubleSlash:
            return *op = OperatorKind::kFloorDiv, true;
          case Tok::kPercent:
            return *op = OperatorKind::kMod, true;
          case Tok::kAt:
            return *op = OperatorKind::kMatMult, true;
          default:
            return false;
        }
    }
    return false;
  }

  ExprNode* Binary(Level level) {
    const Token& st = Cur();
    ExprNode* left = level == kTerm ? Factor() : Binary(static_cast<Level>(level + 1));
    if (!left) return nullptr;
    OperatorKind op;
    while (BinOpAt(level, &op)) {
      ++p_;
      ExprNode* right = level == kTerm ? Factor() : Binary(static_cast<Level>(level + 1));
      if (!right) return nullptr;
      auto* b = New<BinOp>(st);
      b->left = left;
      b->op = op;
      b->right = right;
      left = Fin(b);
    }
    return left;
  }
  ExprNode* BitwiseOr() { return Binary(kBitOr); }

  ExprNode* Factor() {
    Tok k = Peek();
    if (k == Tok::kPlus || k == Tok::kMinus || k == Tok::kTilde) {
      DepthGuard g(this);
      if (g.Exceeded()) return nullptr;
      const Token& st = Cur();
      ++p_;
      auto* u = New<UnaryOp>(st);
      u->op = k == Tok::kPlus    ? UnaryOpKind::kUAdd
              : k == Tok::kMinus ? UnaryOpKind::kUSub
                                 : UnaryOpKind::kInvert;
      if (!(u->operand = Factor())) return nullptr;
      return Fin(u);
    }
    return Power();
  }

  ExprNode* Power() {
    ExprNode* base;
    const Token& st = Cur();
    if (At(Tok::kAwait)) {
      ++p_;
      auto* aw = New<Await>(st);
      if (!(aw->value = Primary())) return nullptr;
      base = Fin(aw);
    } else {
      base = Primary();
    }
    if (!base) return nullptr;
    if (!Accept(Tok::kDoubleStar)) return base;
    DepthGuard g(this);
    if (g.Exceeded()) return nullptr;
    auto* b = New<BinOp>(st);
    b->left = base;
    b->op = OperatorKind::kPow;
    if (!(b->right = Factor())) return nullptr;
    return Fin(b);
  }

  ExprNode* Primary() {
    const Token& st = Cur();
    ExprNode* e = Atom();
    if (!e) return nullptr;
    for (;;) {
      switch (Peek()) {
        case Tok::kDot: {
          ++p_;
          auto* at = New<Attribute>(st);
          at->value = e;
          at->attr = Ident();
          if (failed_) return nullptr;
          at->ctx = ExprContext::kLoad;
          e = Fin(at);
          break;
        }
        case Tok::kLPar: {
          const Token& open = Cur();
          ++p_;
          auto* c = New<Call>(st);
          c->func = e;
          if (!CallArguments(&c->args, &c->keywords, &open)) return nullptr;
          e = Fin(c);
          break;
        }
        case Tok::kLSqb: {
          ++p_;
          auto* s = New<Subscript>(st);
          s->value = e;
          if (!(s->slice = Slices())) return nullptr;
          if (!Expect(Tok::kRSqb)) return nullptr;
          s->ctx = ExprContext::kLoad;
          e = Fin(s);
          break;
        }
        default:
          return e;
      }
    }
  }

  // After '(' of a call or class bases; consumes ')'. `open` (calls only)
  // lets a sole generator argument take the parentheses' span.
  bool CallArguments(Span<ExprNode*>* args_out, Span<Keyword*>* kw_out, const Token* open) {
    Builder<ExprNode> args(this);
    std::vector<Keyword*> kws;
    bool seen_kw = false, seen_dstar = false;
    while (!At(Tok::kRPar)) {
      const Token& st = Cur();
      if (At(Tok::kStar)) {
        ++p_;
        auto* s = New<Starred>(st);
        if (!(s->value = Expression())) return false;
        s->ctx = ExprContext::kLoad;
        if (seen_dstar) {
          FailNode("iterable argument unpacking follows keyword argument unpacking", s);
          return false;
        }
        args.Push(Fin(s));
      } else if (At(Tok::kDoubleStar)) {
        ++p_;
        auto* k = New<Keyword>(st);
        if (!(k->value = Expression())) return false;
        kws.push_back(Fin(k));
        seen_dstar = true;
      } else if (At(Tok::kName) && Peek(1) == Tok::kEqual) {
        auto* k = New<Keyword>(st);
        k->arg = Text(st);
        p_ += 2;
        if (!(k->value = Expression())) return false;
        kws.push_back(Fin(k));
        seen_kw = true;
      } else {
        ExprNode* e = NamedExpression();
        if (!e) return false;
        if (At(Tok::kFor) || At(Tok::kAsync)) {
          bool sole = args.size() == 0 && kws.empty() && open != nullptr;
          auto* g = open ? New<GeneratorExp>(*open) : NewAt<GeneratorExp>(e);
          g->elt = e;
          if ((g->generators = Comprehensions(), failed_)) return false;
          if (!sole || !At(Tok::kRPar)) {
            FailNode("Generator expression must be parenthesized", e);
            return false;
          }
          ++p_;
          Fin(g);
          args.Push(g);
          *args_out = args.Finish();
          return true;
        }
        if (At(Tok::kEqual)) {
          FailMsg("expression cannot contain assignment, perhaps you meant \"==\"?", st);
          return false;
        }
        if (seen_dstar) {
          FailNode("positional argument follows keyword argument unpacking", e);
          return false;
        }
        if (seen_kw) {
          FailNode("positional argument follows keyword argument", e);
          return false;
        }
        args.Push(e);
      }
      if (!Accept(Tok::kComma)) break;
    }
    if (!Expect(Tok::kRPar)) return false;
    *args_out = args.Finish();
    kw_out->count = static_cast<uint32_t>(kws.size());
    kw_out->data = a_.NewArray<Keyword*>(kws.size());
    for (size_t i = 0; i < kws.size(); ++i) kw_out->data[i] = kws[i];
    return true;
  }

  ExprNode* Slices() {
    const Token& st = Cur();
    ExprNode* first = SliceItem();
    if (!first) return nullptr;
    if (!At(Tok::kComma)) {
      if (first->kind == NodeKind::kStarred) {
        auto* t = New<Tuple>(st);
        t->elts = One(first);
        return Fin(t);
      }
      return first;
    }
    Builder<ExprNode> elts(this);
    elts.Push(first);
    while (Accept(Tok::kComma)) {
      if (At(Tok::kRSqb)) break;
      ExprNode* e = SliceItem();
      if (!e) return nullptr;
      elts.Push(e);
    }
    auto* t = New<Tuple>(st);
    t->elts = elts.Finish();
    return Fin(t);
  }

  ExprNode* SliceItem() {
    const Token& st = Cur();
    if (At(Tok::kStar)) {
      ++p_;
      auto* s = New<Starred>(st);
      if (!(s->value = BitwiseOr())) return nullptr;
      return Fin(s);
    }
    ExprNode* lower = nullptr;
    if (!At(Tok::kColon)) {
      lower = NamedExpression();
      if (!lower) return nullptr;
      if (!At(Tok::kColon)) return lower;
      if (lower->kind == NodeKind::kNamedExpr && t_[p_ - 1].kind != Tok::kRPar) {
        return Fail(), nullptr;
      }
    }
    auto* s = New<Slice>(st);
    s->lower = lower;
    ++p_;  // ':'
    if (!At(Tok::kColon) && !At(Tok::kComma) && !At(Tok::kRSqb)) {
      if (!(s->upper = Expression())) return nullptr;
    }
    if (Accept(Tok::kColon)) {
      if (!At(Tok::kComma) && !At(Tok::kRSqb)) {
        if (!(s->step = Expression())) return nullptr;
      }
    }
    return Fin(s);
  }

  Span<Comprehension*> Comprehensions() {
    Builder<Comprehension> gens(this);
    while (At(Tok::kFor) || (At(Tok::kAsync) && Peek(1) == Tok::kFor)) {
      auto* c = a_.New<Comprehension>();
      c->kind = NodeKind::kComprehension;
      if (Accept(Tok::kAsync)) c->is_async = 1;
      ++p_;  // for
      if (!(c->target = ForTargets())) return {};
      if (!Expect(Tok::kIn)) return {};
      if (!(c->iter = Disjunction())) return {};
      {
        Builder<ExprNode> ifs(this);  // scoped: must unwind before gens.Push
        while (Accept(Tok::kIf)) {
          ExprNode* cond = Disjunction();
          if (!cond) return {};
          ifs.Push(cond);
        }
        c->ifs = ifs.Finish();
      }
      gens.Push(c);
    }
    if (gens.size() == 0) return Fail(), Span<Comprehension*>{};
    return gens.Finish();
  }

  ExprNode* YieldExpr() {
    const Token& st = Cur();
    ++p_;
    if (Accept(Tok::kFrom)) {
      auto* y = New<YieldFrom>(st);
      if (!(y->value = Expression())) return nullptr;
      return Fin(y);
    }
    auto* y = New<Yield>(st);
    if (StartsExpression(Peek())) {
      if (!(y->value = StarExpressions())) return nullptr;
    }
    return Fin(y);
  }

  ExprNode* Atom() {
    const Token& st = Cur();
    switch (Peek()) {
      case Tok::kName:
        ++p_;
        return MakeName(st, ExprContext::kLoad);
      case Tok::kNone:
      case Tok::kTrue:
      case Tok::kFalse:
      case Tok::kEllipsis: {
        auto* c = New<Constant>(st);
        c->value.kind = Peek() == Tok::kNone    ? ConstantKind::kNone
                        : Peek() == Tok::kTrue  ? ConstantKind::kTrue
                        : Peek() == Tok::kFalse ? ConstantKind::kFalse
                                                : ConstantKind::kEllipsis;
        ++p_;
        return Fin(c);
      }
      case Tok::kNumber: {
        auto* c = New<Constant>(st);
        if (!DecodeNumber(Text(st), a_, &c->value)) {
          FailMsg("invalid number literal", st);
          return nullptr;
        }
        ++p_;
        return Fin(c);
      }
      case Tok::kString:
      case Tok::kFStringStart:
        return Strings();
      case Tok::kLPar:
        return ParenAtom();
      case Tok::kLSqb:
        return ListAtom();
      case Tok::kLBrace:
        return BraceAtom();
      default:
        Fail();
        return nullptr;
    }
  }

  ExprNode* ParenAtom() {
    DepthGuard g(this);
    if (g.Exceeded()) return nullptr;
    const Token& st = Cur();
    ++p_;
    if (Accept(Tok::kRPar)) {
      auto* t = New<Tuple>(st);
      return Fin(t);
    }
    if (At(Tok::kYield)) {
      ExprNode* y = YieldExpr();
      if (!y || !Expect(Tok::kRPar)) return nullptr;
      return y;
    }
    ExprNode* first = StarNamedExpression();
    if (!first) return nullptr;
    if (At(Tok::kFor) || (At(Tok::kAsync) && Peek(1) == Tok::kFor)) {
      if (first->kind == NodeKind::kStarred) return Fail(), nullptr;
      auto* gexp = New<GeneratorExp>(st);
      gexp->elt = first;
      if ((gexp->generators = Comprehensions(), failed_)) return nullptr;
      if (!Expect(Tok::kRPar)) return nullptr;
      return Fin(gexp);
    }
    if (Accept(Tok::kRPar)) {
      if (first->kind == NodeKind::kStarred) {
        FailNode("cannot use starred expression here", first);
        return nullptr;
      }
      return first;
    }
    if (!At(Tok::kComma)) return Fail(), nullptr;
    Builder<ExprNode> elts(this);
    elts.Push(first);
    if (!StarNamedTail(&elts, Tok::kRPar)) return nullptr;
    auto* t = New<Tuple>(st);
    t->elts = elts.Finish();
    return Fin(t);
  }

  // The rest of a tuple, list or set display after its first element:
  // (',' star_named_expression)* [','] and the closing bracket.
  bool StarNamedTail(Builder<ExprNode>* elts, Tok close) {
    while (Accept(Tok::kComma)) {
      if (At(close)) break;
      ExprNode* e = StarNamedExpression();
      if (!e) return false;
      elts->Push(e);
    }
    return Expect(close);
  }

  ExprNode* ListAtom() {
    DepthGuard g(this);
    if (g.Exceeded()) return nullptr;
    const Token& st = Cur();
    ++p_;
    if (Accept(Tok::kRSqb)) return Fin(New<List>(st));
    ExprNode* first = StarNamedExpression();
    if (!first) return nullptr;
    if (At(Tok::kFor) || (At(Tok::kAsync) && Peek(1) == Tok::kFor)) {
      if (first->kind == NodeKind::kStarred) return Fail(), nullptr;
      auto* lc = New<ListComp>(st);
      lc->elt = first;
      if ((lc->generators = Comprehensions(), failed_)) return nullptr;
      if (!Expect(Tok::kRSqb)) return nullptr;
      return Fin(lc);
    }
    Builder<ExprNode> elts(this);
    elts.Push(first);
    if (!StarNamedTail(&elts, Tok::kRSqb)) return nullptr;
    auto* l = New<List>(st);
    l->elts = elts.Finish();
    return Fin(l);
  }

  ExprNode* BraceAtom() {
    DepthGuard g(this);
    if (g.Exceeded()) return nullptr;
    const Token& st = Cur();
    ++p_;
    if (Accept(Tok::kRBrace)) return Fin(New<Dict>(st));
    if (At(Tok::kDoubleStar)) return DictRest(st, nullptr, nullptr);
    ExprNode* first = StarNamedExpression();
    if (!first) return nullptr;
    if (Accept(Tok::kColon)) {
      if (first->kind == NodeKind::kStarred ||
          (first->kind == NodeKind::kNamedExpr && t_[p_ - 2].kind != Tok::kRPar)) {
        return Fail(), nullptr;
      }
      ExprNode* value = Expression();
      if (!value) return nullptr;
      if (At(Tok::kFor) || (At(Tok::kAsync) && Peek(1) == Tok::kFor)) {
        auto* dc = New<DictComp>(st);
        dc->key = first;
        dc->value = value;
        if ((dc->generators = Comprehensions(), failed_)) return nullptr;
        if (!Expect(Tok::kRBrace)) return nullptr;
        return Fin(dc);
      }
      return DictRest(st, first, value);
    }
    if (At(Tok::kFor) || (At(Tok::kAsync) && Peek(1) == Tok::kFor)) {
      if (first->kind == NodeKind::kStarred) return Fail(), nullptr;
      auto* sc = New<SetComp>(st);
      sc->elt = first;
      if ((sc->generators = Comprehensions(), failed_)) return nullptr;
      if (!Expect(Tok::kRBrace)) return nullptr;
      return Fin(sc);
    }
    Builder<ExprNode> elts(this);
    elts.Push(first);
    if (!StarNamedTail(&elts, Tok::kRBrace)) return nullptr;
    auto* s = New<Set>(st);
    s->elts = elts.Finish();
    return Fin(s);
  }

  // Remaining dict entries; (key, value) is the first pair if already parsed.
  ExprNode* DictRest(const Token& st, ExprNode* key, ExprNode* value) {
    std::vector<ExprNode*> keys, values;
    if (key) {
      keys.push_back(key);
      values.push_back(value);
      if (!Accept(Tok::kComma)) goto close;
    }
    while (!At(Tok::kRBrace)) {
      if (Accept(Tok::kDoubleStar)) {
        ExprNode* v = BitwiseOr();
        if (!v) return nullptr;
        keys.push_back(nullptr);
        values.push_back(v);
      } else {
        ExprNode* k = Expression();
        if (!k || !Expect(Tok::kColon)) return nullptr;
        ExprNode* v = Expression();
        if (!v) return nullptr;
        keys.push_back(k);
        values.push_back(v);
      }
      if (!Accept(Tok::kComma)) break;
    }
  close:
    if (!Expect(Tok::kRBrace)) return nullptr;
    auto* d = New<Dict>(st);
    d->keys.count = d->values.count = static_cast<uint32_t>(keys.size());
    d->keys.data = a_.NewArray<ExprNode*>(keys.size());
    d->values.data = a_.NewArray<ExprNode*>(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      d->keys.data[i] = keys[i];
      d->values.data[i] = values[i];
    }
    return Fin(d);
  }

  // ---- parameters (def and lambda) ----

  Arg* Param(bool lambda, bool star_annotation) {
    const Token& st = Cur();
    auto* a = New<Arg>(st);
    a->arg = Ident();
    if (failed_) return nullptr;
    if (!lambda && Accept(Tok::kColon)) {
      if (star_annotation && At(Tok::kStar)) {
        a->annotation = StarExpression();
      } else {
        a->annotation = Expression();
      }
      if (!a->annotation) return nullptr;
    }
    return Fin(a);
  }

  // Parses parameters up to (not including) ')' for def or ':' for lambda.
  Arguments* Parameters(bool lambda) {
    Tok close = lambda ? Tok::kColon : Tok::kRPar;
    auto* args = a_.New<Arguments>();
    args->kind = NodeKind::kArguments;
    std::vector<Arg*> positional, kwonly;
    std::vector<ExprNode*> defaults, kw_defaults;
    size_t posonly_count = 0;
    bool seen_slash = false, seen_star = false, seen_kwarg = false;
    while (!At(close)) {
      const Token& st = Cur();
      if (seen_kwarg) {
        FailMsg("arguments cannot follow var-keyword argument", st);
        return nullptr;
      }
      if (Accept(Tok::kSlash)) {
        if (seen_slash) {
          FailMsg("/ may appear only once", st);
          return nullptr;
        }
        if (seen_star) {
          FailMsg("/ must be ahead of *", st);
          return nullptr;
        }
        if (positional.empty()) {
          FailMsg("at least one argument must precede /", st);
          return nullptr;
        }
        seen_slash = true;
        posonly_count = positional.size();
      } else if (Accept(Tok::kStar)) {
        if (seen_star) {
          FailMsg("* argument may appear only once", st);
          return nullptr;
        }
        seen_star = true;
        if (At(Tok::kComma) || At(close)) {
          if (At(close) || Peek(1) == close || Peek(1) == Tok::kDoubleStar) {
            FailMsg("named arguments must follow bare *", st);
            return nullptr;
          }
        } else {
          if (!(args->vararg = Param(lambda, true))) return nullptr;
          if (At(Tok::kEqual)) {
            FailMsg("var-positional argument cannot have default value", Cur());
            return nullptr;
          }
        }
      } else if (Accept(Tok::kDoubleStar)) {
        if (!(args->kwarg = Param(lambda, false))) return nullptr;
        if (At(Tok::kEqual)) {
          FailMsg("var-keyword argument cannot have default value", Cur());
          return nullptr;
        }
        seen_kwarg = true;
      } else {
        Arg* a = Param(lambda, false);
        if (!a) return nullptr;
        ExprNode* def = nullptr;
        if (Accept(Tok::kEqual)) {
          if (!(def = Expression())) return nullptr;
        }
        if (seen_star) {
          kwonly.push_back(a);
          kw_defaults.push_back(def);
        } else {
          if (def) {
            defaults.push_back(def);
          } else if (!defaults.empty()) {
            FailMsg("parameter without a default follows parameter with a default", st);
            return nullptr;
          }
          positional.push_back(a);
        }
      }
      if (!Accept(Tok::kComma)) break;
    }
    if (!At(close)) return Fail(), nullptr;
    auto copy = [&](auto& vec, auto first, auto last, auto* span) {
      span->count = static_cast<uint32_t>(last - first);
      span->data = a_.NewArray<std::remove_reference_t<decltype(vec[0])>>(span->count);
      for (uint32_t i = 0; i < span->count; ++i) span->data[i] = vec[first + i];
    };
    copy(positional, size_t{0}, posonly_count, &args->posonlyargs);
    copy(positional, posonly_count, positional.size(), &args->args);
    copy(kwonly, size_t{0}, kwonly.size(), &args->kwonlyargs);
    copy(kw_defaults, size_t{0}, kw_defaults.size(), &args->kw_defaults);
    copy(defaults, size_t{0}, defaults.size(), &args->defaults);
    return args;
  }

  // ---- strings and f-strings ----

  // Literal text waiting to become one Constant of a JoinedStr: adjacent
  // literal pieces merge, as in CPython. Positions: from the first piece's
  // start to the last piece's end.
  struct Pending {
    std::string text;
    int line = 0, col = 0, end_line = 0, end_col = 0;
    void Add(std::string_view piece_text, int l, int c, int el, int ec) {
      if (text.empty()) {
        line = l;
        col = c;
      }
      text.append(piece_text);
      end_line = el;
      end_col = ec;
    }
  };

  ExprNode* Strings() {
    const Token& st = Cur();
    bool any_f = false, any_bytes = false, any_str = false;
    bool first_u = false, first = true;
    std::string buf;  // concatenated text while no f-string has been seen
    int buf_line = 0, buf_col = 0, buf_end_line = 0, buf_end_col = 0;
    std::vector<ExprNode*> values;
    Pending pending;
    while (At(Tok::kString) || At(Tok::kFStringStart)) {
      const Token& tok = Cur();
      if (At(Tok::kString)) {
        std::string_view text = Text(tok);
        StringPrefix pre = ParsePrefix(text);
        if (first) first_u = pre.u;
        (pre.bytes ? any_bytes : any_str) = true;
        std::string err, piece;
        if (!DecodeStringLiteral(text, pre, &piece, &err)) {
          FailMsg(err, tok);
          return nullptr;
        }
        ++p_;
        if (any_f) {
          pending.Add(piece, tok.line, tok.col, tok.end_line, tok.end_col);
        } else {
          if (buf.empty()) buf_line = tok.line, buf_col = tok.col;
          buf += piece;
          buf_end_line = tok.end_line, buf_end_col = tok.end_col;
        }
      } else {
        any_str = true;
        if (!any_f) {
          any_f = true;
          if (!buf.empty()) pending.Add(buf, buf_line, buf_col, buf_end_line, buf_end_col);
        }
        if (!FString(&values, &pending)) return nullptr;
      }
      first = false;
    }
    if (any_bytes && any_str) {
      FailAt("cannot mix bytes and nonbytes literals", Prev().end_line, Prev().end_col);
      return nullptr;
    }
    if (!any_f) {
      auto* c = New<Constant>(st);
      c->value.kind = any_bytes ? ConstantKind::kBytes : ConstantKind::kStr;
      c->value.text = a_.CopyString(buf);
      if (first_u) c->str_kind = "u";
      return Fin(c);
    }
    FlushPending(&values, &pending);
    auto* j = New<JoinedStr>(st);
    j->values = CopySpan(values);
    return Fin(j);
  }

  Span<ExprNode*> CopySpan(const std::vector<ExprNode*>& v) {
    Span<ExprNode*> s;
    s.count = static_cast<uint32_t>(v.size());
    s.data = a_.NewArray<ExprNode*>(v.size());
    for (size_t i = 0; i < v.size(); ++i) s.data[i] = v[i];
    return s;
  }

  Constant* StrConstant(std::string_view text, int line, int col, int end_line, int end_col) {
    auto* c = a_.New<Constant>();
    c->kind = NodeKind::kConstant;
    c->value.kind = ConstantKind::kStr;
    c->value.text = a_.CopyString(text);
    c->pos = Position{line, col, end_line, end_col};
    return c;
  }

  void FlushPending(std::vector<ExprNode*>* values, Pending* pending) {
    if (!pending->text.empty()) {
      values->push_back(StrConstant(pending->text, pending->line, pending->col, pending->end_line,
                                    pending->end_col));
    }
    pending->text.clear();
  }

  // One f-string token group: FSTRING_START ... FSTRING_END.
  bool FString(std::vector<ExprNode*>* values, Pending* pending) {
    DepthGuard g(this);
    if (g.Exceeded()) return false;
    StringPrefix pre = ParsePrefix(Text(Cur()));
    ++p_;
    for (;;) {
      if (Accept(Tok::kFStringEnd)) return true;
      if (At(Tok::kFStringMiddle)) {
        const Token& mt = Cur();
        std::string err, piece;
        if (!DecodeFStringMiddle(Text(mt), pre.raw, &piece, &err)) {
          FailMsg(err, mt);
          return false;
        }
        pending->Add(piece, mt.line, mt.col, mt.end_line, mt.end_col);
        ++p_;
        continue;
      }
      if (At(Tok::kLBrace)) {
        if (!ReplacementField(values, pending, pre.raw)) return false;
        continue;
      }
      Fail();
      return false;
    }
  }

  bool ReplacementField(std::vector<ExprNode*>* values, Pending* pending, bool raw) {
    const Token& open = Cur();
    ++p_;
    if (At(Tok::kRBrace) || At(Tok::kExclamation) || At(Tok::kColon) || At(Tok::kEqual)) {
      FailMsg(std::string("f-string: valid expression required before '") + TokName(Peek()) + "'",
              Cur());
      return false;
    }
    ExprNode* e = YieldOrStarExpressions();
    if (!e) return false;
    auto* fv = New<FormattedValue>(open);
    fv->value = e;
    fv->conversion = -1;
    bool debug = false;
    if (At(Tok::kEqual)) {
      ++p_;
      debug = true;
      // The expression text and '=' with surrounding whitespace, verbatim.
      const Token& next = Cur();
      pending->Add(src_.substr(open.end, next.start - open.end), open.end_line, open.end_col,
                   next.line, next.col);
    }
    if (At(Tok::kExclamation)) {
      const Token& bang = Cur();
      ++p_;
      const Token& conv = Cur();
      std::string_view c = At(Tok::kName) ? Text(conv) : std::string_view();
      if (!At(Tok::kName) || conv.start != bang.end) {
        FailMsg("f-string: missing conversion character", conv);
        return false;
      }
      if (c != "s" && c != "r" && c != "a") {
        FailMsg("f-string: invalid conversion character '" + std::string(c) +
                    "': expected 's', 'r', or 'a'",
                conv);
        return false;
      }
      fv->conversion = c[0];
      ++p_;
    }
    if (At(Tok::kColon)) {
      const Token& colon = Cur();
      ++p_;
      std::vector<ExprNode*> spec_values;
      Pending spec_pending;
      bool last_field = false;
      for (;;) {
        if (At(Tok::kFStringMiddle)) {
          const Token& mt = Cur();
          std::string err, piece;
          if (!DecodeFStringMiddle(Text(mt), raw, &piece, &err)) {
            FailMsg(err, mt);
            return false;
          }
          spec_pending.Add(piece, mt.line, mt.col, mt.end_line, mt.end_col);
          last_field = false;
          ++p_;
        } else if (At(Tok::kLBrace)) {
          if (!ReplacementField(&spec_values, &spec_pending, raw)) return false;
          last_field = true;
        } else {
          break;
        }
      }
      FlushPending(&spec_values, &spec_pending);
      const Token& close = Cur();
      if (last_field) {
        // CPython 3.12 ends a format spec that ends in a field with an empty literal.
        spec_values.push_back(StrConstant("", close.line, close.col, close.line, close.col));
      }
      auto* js = New<JoinedStr>(colon);
      js->values = CopySpan(spec_values);
      js->pos.end_lineno = close.line;
      js->pos.end_col_offset = close.col;
      fv->format_spec = js;
    }
    if (!At(Tok::kRBrace)) {
      if (At(Tok::kFStringEnd) || At(Tok::kEndMarker)) {
        FailMsg("f-string: expecting '}'", Cur());
      } else {
        Fail();
      }
      return false;
    }
    ++p_;
    if (debug && fv->conversion == -1 && fv->format_spec == nullptr) fv->conversion = 'r';
    Fin(fv);
    FlushPending(values, pending);
    values->push_back(fv);
    return true;
  }

  Arena& a_;
  std::string_view src_;
  const std::vector<Token>& t_;
  size_t p_ = 0;
  size_t furthest_ = 0;
  bool failed_ = false;
  std::string msg_;
  int err_line_ = 0, err_col_ = 0;
  int depth_ = 0;
  std::vector<void*> scratch_;
  std::vector<Identifier> idents_;
  std::vector<CmpOpKind> cmpops_;
};

// 0-based byte column on a line -> 1-based character column.
int CharColumn(std::string_view src, int line, int byte_col) {
  size_t pos = 0;
  for (int l = 1; l < line; ++l) {
    size_t nl = src.find('\n', pos);
    if (nl == std::string_view::npos) return byte_col + 1;
    pos = nl + 1;
  }
  int chars = 0;
  for (int i = 0; i < byte_col && pos + i < src.size(); ++i) {
    if ((static_cast<unsigned char>(src[pos + i]) & 0xC0) != 0x80) ++chars;
  }
  return chars + 1;
}

}  // namespace

Result<ParsedModule> ParseModule(std::string_view source, std::string_view filename,
                                 SyntaxError* error) {
  ParsedModule out;
  out.arena = std::make_unique<Arena>();
  std::string normalized;
  LexError lex_err;
  SyntaxError se;
  bool ok = false;
  if (NormalizeSource(source, &normalized, &lex_err)) {
    out.source = out.arena->CopyString(normalized);
    std::vector<Token> toks = Tokenize(out.source, &lex_err);
    if (!lex_err.failed) {
      Parser parser(*out.arena, out.source, toks);
      out.module = parser.ParseFile();
      if (out.module) {
        ok = true;
      } else {
        int line = 0, col = 0;
        parser.Error(&line, &col, &se.message);
        se.line = line;
        se.col = CharColumn(out.source, line, col);
      }
    } else {
      // CPython tokenizes lazily, so a parse error before the tokenizer's
      // error wins: parse the tokens before it, ended by a sentinel.
      se.line = lex_err.line;
      se.col = CharColumn(out.source, lex_err.line, lex_err.col);
      se.message = lex_err.message;
      Token sentinel{Tok::kEndMarker, 0, 0, lex_err.line, lex_err.col, lex_err.line, lex_err.col};
      toks.push_back(sentinel);
      Parser parser(*out.arena, out.source, toks);
      if (parser.ParseFile() == nullptr && parser.furthest() + 1 < toks.size()) {
        int line = 0, col = 0;
        std::string msg;
        parser.Error(&line, &col, &msg);
        // CPython tokenizes the rest of the file after a generic "invalid syntax"
        // and lets a tokenizer error found there win; an unclosed bracket wins only
        // when it was opened on an earlier line than the parse error. Specific
        // messages and indentation errors stand.
        const bool unclosed = lex_err.message.find("was never closed") != std::string::npos;
        const bool lexer_wins = msg == "invalid syntax" && (!unclosed || line > lex_err.line);
        if (!lexer_wins) {
          se.message = msg;
          se.line = line;
          se.col = CharColumn(out.source, line, col);
        }
      }
    }
  } else {
    se.line = lex_err.line;
    se.col = lex_err.col + 1;
    se.message = lex_err.message;
  }
  if (ok) return out;
  if (error) *error = se;
  return Status::ParseError(std::string(filename) + ":" + std::to_string(se.line) + ":" +
                            std::to_string(se.col) + ": SyntaxError: " + se.message);
}

}  // namespace tritonrl::pyast
