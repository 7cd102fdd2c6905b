/* Fortran namelist reader (namelists/README.md, Syntax).
 *
 * A lexer produces tokens on demand, at most two ahead of the parser, so the
 * first error in text order is the one reported. The syntax is the namelist
 * input of Fortran 2018 (ISO/IEC 1539-1:2018, 13.11.3) restricted as
 * cryo_namelist.h says: every construct the reader does not support is an
 * error, never silently skipped.
 */
#include "cryo_namelist.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Longest excerpt of the text quoted in a message. */
#define NML_SHOW_MAX       60
#define NML_SHOW(ptr, len) (int)((len) < NML_SHOW_MAX ? (len) : NML_SHOW_MAX), (ptr)

enum { TOK_EOF, TOK_GROUP, TOK_SLASH, TOK_COMMA, TOK_EQUALS, TOK_WORD, TOK_STRING };

/* Kinds of value a token can hold; VAL_GARBAGE is none of them. */
enum { VAL_GARBAGE, VAL_INT, VAL_REAL, VAL_LOGICAL, VAL_STRING };

typedef struct nml_token {
  int type;
  int line;
  const char *raw; /* the whole token as written, for messages */
  size_t raw_len;
  const char *body; /* group name, word, or string contents with quotes still doubled */
  size_t body_len;
  char quote;      /* strings: the delimiter */
  const char *rep; /* strings: the repeat count written before '*', or NULL */
  size_t rep_len;
} nml_token;

typedef struct nml_parser {
  const char *text;
  const char *src; /* source name for messages */
  const char *pos; /* next character the lexer reads */
  int line;        /* line of pos */
  nml_token ahead[2];
  int nahead;
  const cryo_nml_group *groups;
  int ngroups;
  int *group_line; /* line of each group's &name, 0 until seen */
  int *key_base;   /* index of group g's first key in key_line */
  int *key_line;   /* line where each key was given, 0 until seen */
  cryo_err *err;
} nml_parser;

/* Record "<source>:<line>: <message>" and return status; the macro keeps the
 * cryodyn file and line where the problem was detected. */
static int nml_fail(nml_parser *p, int status, int line, const char *file, int cline,
                    const char *func, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static int nml_fail(nml_parser *p, int status, int line, const char *file, int cline,
                    const char *func, const char *fmt, ...) {
  char msg[CRYO_ERR_MSG_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return cryo_err_set(p->err, status, file, cline, func, "%s:%d: %s", p->src, line, msg);
}

#define NML_FAIL(p, status, line, ...)                                                             \
  nml_fail((p), (status), (line), __FILE__, __LINE__, __func__, __VA_ARGS__)

static int is_name_char(char c) {
  return isalnum((unsigned char)c) || c == '_';
}

/* Characters that end a word: blanks, separators, comment and quotes. */
static int is_word_char(char c) {
  return c != '\0' && !isspace((unsigned char)c) && !strchr(",=/!&'\"", c);
}

static int is_identifier(const char *s, size_t n) {
  if (n == 0 || !isalpha((unsigned char)s[0])) return 0;
  for (size_t i = 1; i < n; i++)
    if (!is_name_char(s[i])) return 0;
  return 1;
}

/* Case-insensitive comparison of the n characters at s with the whole of name. */
static int name_eq(const char *s, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (name[i] == '\0' || tolower((unsigned char)s[i]) != tolower((unsigned char)name[i]))
      return 0;
  return name[n] == '\0';
}

/* A string from its opening quote at p->pos to the matching one on the same
 * line; a doubled quote stands for one quote character. */
static int lex_string(nml_parser *p, nml_token *t) {
  char q = *p->pos;
  const char *s = p->pos + 1;
  for (;;) {
    if (*s == '\0' || *s == '\n' || *s == '\r') {
      return NML_FAIL(p, CRYO_ERR_SYNTAX, t->line,
                      "unterminated string %.*s (no closing %c on its line)",
                      NML_SHOW(t->raw, (size_t)(s - t->raw)), q);
    }
    if (*s == q) {
      if (s[1] != q) break;
      s++;
    }
    s++;
  }
  t->type = TOK_STRING;
  t->quote = q;
  t->body = p->pos + 1;
  t->body_len = (size_t)(s - t->body);
  p->pos = s + 1;
  t->raw_len = (size_t)(p->pos - t->raw);
  return CRYO_OK;
}

static int lex_group(nml_parser *p, nml_token *t) {
  const char *s = p->pos + 1;
  while (is_word_char(*s))
    s++;
  t->type = TOK_GROUP;
  t->body = p->pos + 1;
  t->body_len = (size_t)(s - t->body);
  t->raw_len = (size_t)(s - t->raw);
  p->pos = s;
  if (t->body_len == 0)
    return NML_FAIL(p, CRYO_ERR_SYNTAX, t->line, "'&' without a group name after it");
  if (!is_identifier(t->body, t->body_len))
    return NML_FAIL(p, CRYO_ERR_SYNTAX, t->line, "'%.*s' is not a valid group name",
                    NML_SHOW(t->raw, t->raw_len));
  return CRYO_OK;
}

/* Next token after blanks and comments. A word such as `3*` directly followed
 * by a quote is the repeat count of the string that follows. */
static int lex_next(nml_parser *p, nml_token *t) {
  for (;;) {
    if (*p->pos == '\n') {
      p->line++;
      p->pos++;
    } else if (isspace((unsigned char)*p->pos)) {
      p->pos++;
    } else if (*p->pos == '!') {
      while (*p->pos != '\0' && *p->pos != '\n')
        p->pos++;
    } else {
      break;
    }
  }
  memset(t, 0, sizeof *t);
  t->line = p->line;
  t->raw = p->pos;
  t->raw_len = 1;
  switch (*p->pos) {
  case '\0':
    t->type = TOK_EOF;
    t->raw_len = 0;
    return CRYO_OK;
  case '/':
    t->type = TOK_SLASH;
    p->pos++;
    return CRYO_OK;
  case ',':
    t->type = TOK_COMMA;
    p->pos++;
    return CRYO_OK;
  case '=':
    t->type = TOK_EQUALS;
    p->pos++;
    return CRYO_OK;
  case '&':
    return lex_group(p, t);
  case '\'':
  case '"':
    return lex_string(p, t);
  default:
    break;
  }
  const char *s = p->pos;
  while (is_word_char(*s))
    s++;
  if (s[-1] == '*' && (*s == '\'' || *s == '"')) {
    t->rep = p->pos;
    t->rep_len = (size_t)(s - 1 - p->pos);
    p->pos = s;
    return lex_string(p, t);
  }
  t->type = TOK_WORD;
  t->body = p->pos;
  t->body_len = (size_t)(s - p->pos);
  t->raw_len = t->body_len;
  p->pos = s;
  return CRYO_OK;
}

/* Token k (0 or 1) ahead of the parser, lexing it if needed. */
static int peek(nml_parser *p, int k, const nml_token **t) {
  while (p->nahead <= k) {
    CRYO_CALL(lex_next(p, &p->ahead[p->nahead]));
    p->nahead++;
  }
  *t = &p->ahead[k];
  return CRYO_OK;
}

static void advance(nml_parser *p) {
  p->ahead[0] = p->ahead[1];
  p->nahead--;
}

static int edit_distance(const char *a, size_t na, const char *b) {
  enum { MAXLEN = 64 };
  size_t nb = strlen(b);
  if (na > MAXLEN || nb > MAXLEN) return INT_MAX;
  int row[MAXLEN + 1];
  for (size_t j = 0; j <= nb; j++)
    row[j] = (int)j;
  for (size_t i = 1; i <= na; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= nb; j++) {
      int up = row[j];
      int sub = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
      int best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
      row[j] = sub < best ? sub : best;
      diag = up;
    }
  }
  return row[nb];
}

/* Hint for an unknown name: the closest known one within edit distance 2 (and
 * less than the word's length, so that `r` does not suggest `nx`), or the list
 * of known names. `table` is an array of `count` structs of size
 * `stride` whose first member is the name (cryo_nml_group or cryo_nml_key). */
static void name_hint(char *buf, size_t cap, const char *word, size_t n, const void *table,
                      size_t stride, int count, const char *prefix) {
  const char *best = NULL;
  int best_d = 3;
  for (int i = 0; i < count; i++) {
    const char *name = *(const char *const *)((const char *)table + (size_t)i * stride);
    int d = edit_distance(word, n, name);
    if (d < best_d && (size_t)d < n) {
      best_d = d;
      best = name;
    }
  }
  if (best) {
    snprintf(buf, cap, "; did you mean '%s%s'?", prefix, best);
    return;
  }
  size_t used = (size_t)snprintf(buf, cap, "; known: ");
  for (int i = 0; i < count && used < cap; i++) {
    const char *name = *(const char *const *)((const char *)table + (size_t)i * stride);
    used += (size_t)snprintf(buf + used, cap - used, "%s%s%s", i ? ", " : "", prefix, name);
  }
  if (count == 0) snprintf(buf, cap, " (the group has no names)");
}

/* `t`, `.true.`, `True`, `.F` ...: an optional '.', T or F, optionally the rest
 * of "true"/"false", an optional '.'. */
static int parse_logical(const char *s, size_t n, int *value) {
  size_t i = 0;
  if (i < n && s[i] == '.') i++;
  if (i >= n) return 0;
  char c = (char)tolower((unsigned char)s[i++]);
  if (c != 't' && c != 'f') return 0;
  const char *rest = c == 't' ? "rue" : "alse";
  size_t m = strlen(rest), j = 0;
  while (j < m && i + j < n && tolower((unsigned char)s[i + j]) == rest[j])
    j++;
  if (j == m) i += m;
  if (i < n && s[i] == '.') i++;
  if (i != n) return 0;
  *value = c == 't';
  return 1;
}

/* VAL_INT for [+-]digits, VAL_REAL for a Fortran real literal (mantissa with
 * at least one digit, optional exponent with e, E, d or D), else VAL_GARBAGE. */
static int classify_number(const char *s, size_t n) {
  size_t i = 0, digits = 0;
  int is_real = 0;
  if (i < n && (s[i] == '+' || s[i] == '-')) i++;
  while (i < n && isdigit((unsigned char)s[i]))
    i++, digits++;
  if (i < n && s[i] == '.') {
    is_real = 1;
    i++;
    while (i < n && isdigit((unsigned char)s[i]))
      i++, digits++;
  }
  if (digits == 0) return VAL_GARBAGE;
  if (i < n && strchr("eEdD", s[i])) {
    size_t exp_digits = 0;
    is_real = 1;
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    while (i < n && isdigit((unsigned char)s[i]))
      i++, exp_digits++;
    if (exp_digits == 0) return VAL_GARBAGE;
  }
  if (i != n) return VAL_GARBAGE;
  return is_real ? VAL_REAL : VAL_INT;
}

/* Integer literal to int; 0 when it does not fit. */
static int int_value(const char *s, size_t n, int *value) {
  size_t i = 0;
  int neg = s[0] == '-';
  long long a = 0;
  if (s[0] == '+' || s[0] == '-') i++;
  for (; i < n; i++) {
    a = a * 10 + (s[i] - '0');
    if (a > (long long)INT_MAX + 1) return 0;
  }
  if (neg) a = -a;
  if (a > INT_MAX) return 0;
  *value = (int)a;
  return 1;
}

/* Real literal to double with strtod (correctly rounded, so 1.5d-3 gives the
 * same double as 1.5e-3); the Fortran exponent letter d becomes e, and '.' the
 * decimal point of the host's C locale, which strtod follows. A literal of
 * any length is read (trailing zeros do not change the value), so the copy
 * is on the heap past a small one. 1 when read, 0 when the value overflows a
 * double, -1 when out of memory. */
static int real_value(const char *s, size_t n, double *value) {
  char small[128];
  const char *point = localeconv()->decimal_point;
  if (strlen(point) != 1) return 0;
  char *buf = n < sizeof small ? small : malloc(n + 1);
  if (!buf) return -1;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    buf[i] = (c == 'd' || c == 'D') ? 'e' : c == '.' ? point[0] : c;
  }
  buf[n] = '\0';
  errno = 0;
  char *end;
  *value = strtod(buf, &end);
  int ok = end == buf + n && !(errno == ERANGE && fabs(*value) > 1.0);
  if (buf != small) free(buf);
  return ok;
}

/* The contents of a string token with doubled quotes undone, written to out
 * (when not NULL) with a NUL; returns the length. */
static size_t unquote(const nml_token *t, char *out) {
  size_t n = 0;
  for (size_t i = 0; i < t->body_len; i++, n++) {
    if (t->body[i] == t->quote) i++;
    if (out) out[n] = t->body[i];
  }
  if (out) out[n] = '\0';
  return n;
}

/* Index of the choice a string token names (case-insensitively), or -1. */
static int find_choice(const nml_token *t, const char *const *choices) {
  for (int c = 0; choices[c]; c++) {
    const char *s = choices[c];
    size_t i = 0;
    for (; i < t->body_len && *s; i++, s++) {
      if (t->body[i] == t->quote) i++;
      if (tolower((unsigned char)t->body[i]) != tolower((unsigned char)*s)) break;
    }
    if (i == t->body_len && *s == '\0') return c;
  }
  return -1;
}

/* The repeat count r of `r*value`: digits only, at least 1. Counts beyond
 * INT_MAX are clipped, which the capacity check then rejects. */
static int repeat_count(nml_parser *p, const cryo_nml_group *g, const cryo_nml_key *k,
                        const nml_token *t, const char *rep, size_t rep_len, size_t value_len,
                        long long *count) {
  long long r = 0;
  size_t i = 0;
  for (; i < rep_len && isdigit((unsigned char)rep[i]); i++)
    if (r <= INT_MAX) r = r * 10 + (rep[i] - '0');
  if (rep_len == 0 || i != rep_len || r < 1 || value_len == 0)
    return NML_FAIL(p, CRYO_ERR_SYNTAX, t->line,
                    "&%s: %s = %.*s: bad repeat count (write r*value with r a positive integer "
                    "and the value right after the '*')",
                    g->name, k->name, NML_SHOW(t->raw, t->raw_len));
  *count = r;
  return CRYO_OK;
}

/* One value token (with its repeat count) checked against key k and stored at
 * element *n onwards; *n advances by the repeat count. */
static int assign_value(nml_parser *p, const cryo_nml_group *g, const cryo_nml_key *k,
                        const nml_token *t, int *n) {
  static const char *const kind_name[] = {"", "an integer", "a real number", "a logical",
                                          "a string"};
  static const char *const type_name[] = {"an integer", "a real number (or an integer)",
                                          "a logical (.true. or .false.)", "a quoted string"};
  const char *v = t->body;
  size_t v_len = t->body_len;
  const char *rep = t->rep;
  size_t rep_len = t->rep_len;
  if (t->type == TOK_WORD) {
    const char *star = memchr(t->body, '*', t->body_len);
    if (star) {
      rep = t->body;
      rep_len = (size_t)(star - t->body);
      v = star + 1;
      v_len = t->body_len - rep_len - 1;
    }
  }
  long long count = 1;
  if (rep) CRYO_CALL(repeat_count(p, g, k, t, rep, rep_len, v_len, &count));
  if (t->type == TOK_STRING) {
    v = t->raw + (t->rep ? t->rep_len + 1 : 0);
    v_len = t->body_len + 2;
  }
  char elem[32] = "";
  if (k->max_count > 1) snprintf(elem, sizeof elem, "(%d)", *n + 1);
  const char *units = k->units ? k->units : "";
  const char *space = k->units ? " " : "";

  int kind = VAL_STRING, logical = 0;
  if (t->type == TOK_WORD)
    kind = parse_logical(v, v_len, &logical) ? VAL_LOGICAL : classify_number(v, v_len);
  if (kind == VAL_GARBAGE) {
    const char *hint = k->type == CRYO_NML_STRING ? " (strings must be quoted)"
                       : is_identifier(v, v_len)  ? " (a name without '=' after it?)"
                                                  : "";
    return NML_FAIL(p, CRYO_ERR_SYNTAX, t->line, "&%s: %s%s = %.*s is not a valid value%s", g->name,
                    k->name, elem, NML_SHOW(v, v_len), hint);
  }
  int fits = (k->type == CRYO_NML_INT && kind == VAL_INT) ||
             (k->type == CRYO_NML_REAL && (kind == VAL_INT || kind == VAL_REAL)) ||
             (k->type == CRYO_NML_LOGICAL && kind == VAL_LOGICAL) ||
             (k->type == CRYO_NML_STRING && kind == VAL_STRING);
  if (!fits)
    return NML_FAIL(p, CRYO_ERR_TYPE, t->line, "&%s: %s%s = %.*s is %s, but %s takes %s", g->name,
                    k->name, elem, NML_SHOW(v, v_len), kind_name[kind], k->name,
                    type_name[k->type]);

  int ival = logical, choice = -1;
  double rval = 0.0;
  if (k->type == CRYO_NML_INT && !int_value(v, v_len, &ival))
    return NML_FAIL(p, CRYO_ERR_RANGE, t->line,
                    "&%s: %s%s = %.*s does not fit in an integer (integer overflow; limits [%d, "
                    "%d])",
                    g->name, k->name, elem, NML_SHOW(v, v_len), INT_MIN, INT_MAX);
  int real_ok = k->type == CRYO_NML_REAL ? real_value(v, v_len, &rval) : 1;
  if (real_ok < 0)
    return NML_FAIL(p, CRYO_ERR_MEMORY, t->line,
                    "&%s: %s%s: out of memory reading a %zu-character number", g->name, k->name,
                    elem, v_len);
  if (!real_ok)
    return NML_FAIL(p, CRYO_ERR_RANGE, t->line,
                    "&%s: %s%s = %.*s is not representable as a double (overflow)", g->name,
                    k->name, elem, NML_SHOW(v, v_len));
  if (k->type == CRYO_NML_INT) rval = ival;
  if ((k->type == CRYO_NML_INT || k->type == CRYO_NML_REAL) && k->min <= k->max &&
      (rval < k->min || rval > k->max))
    return NML_FAIL(p, CRYO_ERR_RANGE, t->line,
                    "&%s: %s%s = %.*s is out of range [%.15g, %.15g]%s%s", g->name, k->name, elem,
                    NML_SHOW(v, v_len), k->min, k->max, space, units);
  if (k->type == CRYO_NML_STRING) {
    size_t len = unquote(t, NULL);
    if (len + 1 > k->str_len)
      return NML_FAIL(p, CRYO_ERR_RANGE, t->line,
                      "&%s: %s%s = %.*s is too long: %zu characters, at most %zu", g->name, k->name,
                      elem, NML_SHOW(v, v_len), len, k->str_len - 1);
    if (k->choices && (choice = find_choice(t, k->choices)) < 0) {
      char list[512];
      size_t used = 0;
      for (int c = 0; k->choices[c] && used < sizeof list; c++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s'%s'", c ? ", " : "",
                                 k->choices[c]);
      return NML_FAIL(p, CRYO_ERR_RANGE, t->line, "&%s: %s%s = %.*s is not one of %s", g->name,
                      k->name, elem, NML_SHOW(v, v_len), list);
    }
  }
  if (count > k->max_count - *n) {
    if (k->max_count == 1)
      return NML_FAIL(p, CRYO_ERR_RANGE, t->line,
                      "&%s: %s takes a single value; %.*s is one too many", g->name, k->name,
                      NML_SHOW(t->raw, t->raw_len));
    return NML_FAIL(p, CRYO_ERR_RANGE, t->line,
                    "&%s: too many values for %s (at most %d): %.*s makes %lld", g->name, k->name,
                    k->max_count, NML_SHOW(t->raw, t->raw_len), *n + count);
  }

  for (long long r = 0; r < count; r++, (*n)++) {
    switch (k->type) {
    case CRYO_NML_INT:
    case CRYO_NML_LOGICAL:
      ((int *)k->dest)[*n] = ival;
      break;
    case CRYO_NML_REAL:
      ((double *)k->dest)[*n] = rval;
      break;
    case CRYO_NML_STRING: {
      char *dest = (char *)k->dest + (size_t)*n * k->str_len;
      if (choice >= 0)
        strcpy(dest, k->choices[choice]);
      else
        unquote(t, dest);
      break;
    }
    }
  }
  return CRYO_OK;
}

/* `name = value ...` of group gi, from the name token to the token after its
 * last value: the next name (a word followed by '=' that is not a number, as
 * numbers cannot be names), '/', or whatever error follows. */
static int parse_entry(nml_parser *p, int gi) {
  const cryo_nml_group *g = &p->groups[gi];
  const nml_token name = p->ahead[0];
  if (!is_identifier(name.body, name.body_len))
    return NML_FAIL(p, CRYO_ERR_SYNTAX, name.line,
                    "&%s: '%.*s' is not a valid name (array elements, sections and "
                    "derived-type components are not supported)",
                    g->name, NML_SHOW(name.raw, name.raw_len));
  int ki = 0;
  while (ki < g->nkeys && !name_eq(name.body, name.body_len, g->keys[ki].name))
    ki++;
  if (ki == g->nkeys) {
    char hint[512];
    name_hint(hint, sizeof hint, name.body, name.body_len, g->keys, sizeof *g->keys, g->nkeys, "");
    return NML_FAIL(p, CRYO_ERR_UNKNOWN, name.line, "&%s: unknown name '%.*s'%s", g->name,
                    NML_SHOW(name.body, name.body_len), hint);
  }
  const cryo_nml_key *k = &g->keys[ki];
  int *seen = &p->key_line[p->key_base[gi] + ki];
  if (*seen)
    return NML_FAIL(p, CRYO_ERR_DUPLICATE, name.line,
                    "&%s: %s given twice, at line %d and again at line %d", g->name, k->name, *seen,
                    name.line);
  *seen = name.line;
  advance(p);
  advance(p);

  int n = 0, commas = 0;
  for (;;) {
    const nml_token *t, *next;
    CRYO_CALL(peek(p, 0, &t));
    if (t->type == TOK_COMMA) {
      commas++;
      advance(p);
      continue;
    }
    if (t->type == TOK_EQUALS)
      return NML_FAIL(p, CRYO_ERR_SYNTAX, t->line, "&%s: unexpected '=' in the values of %s",
                      g->name, k->name);
    if (t->type != TOK_WORD && t->type != TOK_STRING) break;
    if (t->type == TOK_WORD) {
      CRYO_CALL(peek(p, 1, &next));
      if (next->type == TOK_EQUALS && classify_number(t->body, t->body_len) == VAL_GARBAGE) break;
    }
    if (commas > 1 || (n == 0 && commas > 0))
      return NML_FAIL(p, CRYO_ERR_SYNTAX, t->line,
                      "&%s: %s: empty value between commas (null values are not supported)",
                      g->name, k->name);
    CRYO_CALL(assign_value(p, g, k, t, &n));
    commas = 0;
    advance(p);
  }
  if (n == 0)
    return NML_FAIL(p, CRYO_ERR_SYNTAX, name.line, "&%s: no value given for %s", g->name, k->name);
  if (k->count) *k->count = n;
  return CRYO_OK;
}

static int check_required_keys(nml_parser *p, int gi) {
  const cryo_nml_group *g = &p->groups[gi];
  for (int ki = 0; ki < g->nkeys; ki++)
    if (g->keys[ki].required && !p->key_line[p->key_base[gi] + ki])
      return NML_FAIL(p, CRYO_ERR_MISSING, p->group_line[gi],
                      "&%s: required name %s is missing from the group", g->name, g->keys[ki].name);
  return CRYO_OK;
}

/* From `&name` (the next token) to its closing '/'. */
static int parse_group(nml_parser *p) {
  const nml_token amp = p->ahead[0];
  int gi = 0;
  while (gi < p->ngroups && !name_eq(amp.body, amp.body_len, p->groups[gi].name))
    gi++;
  if (gi == p->ngroups) {
    char hint[512];
    name_hint(hint, sizeof hint, amp.body, amp.body_len, p->groups, sizeof *p->groups, p->ngroups,
              "&");
    return NML_FAIL(p, CRYO_ERR_UNKNOWN, amp.line, "unknown group &%.*s%s",
                    NML_SHOW(amp.body, amp.body_len), hint);
  }
  const cryo_nml_group *g = &p->groups[gi];
  if (p->group_line[gi])
    return NML_FAIL(p, CRYO_ERR_DUPLICATE, amp.line,
                    "group &%s given twice, at line %d and again at line %d", g->name,
                    p->group_line[gi], amp.line);
  p->group_line[gi] = amp.line;
  advance(p);
  for (;;) {
    const nml_token *t, *next;
    CRYO_CALL(peek(p, 0, &t));
    switch (t->type) {
    case TOK_EOF:
      return NML_FAIL(p, CRYO_ERR_SYNTAX, amp.line,
                      "&%s: group is not terminated (the text ends before its closing '/')",
                      g->name);
    case TOK_GROUP:
      return NML_FAIL(p, CRYO_ERR_SYNTAX, t->line,
                      "&%.*s begins inside &%s, which starts at line %d (missing '/'?)",
                      NML_SHOW(t->body, t->body_len), g->name, amp.line);
    case TOK_SLASH:
      advance(p);
      return check_required_keys(p, gi);
    case TOK_COMMA:
      advance(p);
      break;
    case TOK_EQUALS:
      return NML_FAIL(p, CRYO_ERR_SYNTAX, t->line, "&%s: '=' without a name before it", g->name);
    case TOK_STRING:
      return NML_FAIL(p, CRYO_ERR_SYNTAX, t->line, "&%s: unexpected string %.*s (expected a name)",
                      g->name, NML_SHOW(t->raw, t->raw_len));
    default:
      CRYO_CALL(peek(p, 1, &next));
      if (next->type == TOK_EQUALS) {
        CRYO_CALL(parse_entry(p, gi));
      } else if (is_identifier(t->body, t->body_len)) {
        return NML_FAIL(p, CRYO_ERR_SYNTAX, t->line, "&%s: missing '=' after '%.*s'", g->name,
                        NML_SHOW(t->body, t->body_len));
      } else {
        return NML_FAIL(p, CRYO_ERR_SYNTAX, t->line,
                        "&%s: unexpected '%.*s' (expected name = value)", g->name,
                        NML_SHOW(t->raw, t->raw_len));
      }
      break;
    }
  }
}

static int parse(nml_parser *p) {
  for (;;) {
    const nml_token *t;
    CRYO_CALL(peek(p, 0, &t));
    if (t->type == TOK_EOF) break;
    if (t->type != TOK_GROUP)
      return NML_FAIL(p, CRYO_ERR_SYNTAX, t->line,
                      "'%.*s' outside a group (only comments and blank lines may appear outside "
                      "&name ... /)",
                      NML_SHOW(t->raw, t->raw_len));
    CRYO_CALL(parse_group(p));
  }
  int last_line = p->line;
  if (p->pos > p->text && p->pos[-1] == '\n') last_line--;
  for (int gi = 0; gi < p->ngroups; gi++)
    if (p->groups[gi].required && !p->group_line[gi])
      return NML_FAIL(p, CRYO_ERR_MISSING, last_line, "missing group &%s", p->groups[gi].name);
  return CRYO_OK;
}

/* Programming errors in the tables, caught before they could corrupt memory. */
static int check_tables(const cryo_nml_group *groups, int ngroups, cryo_err *err) {
  CRYO_CHECK(ngroups >= 0 && (groups || ngroups == 0), err, CRYO_ERR_ARG,
             "namelist tables: %d groups at %p", ngroups, (const void *)groups);
  for (int gi = 0; gi < ngroups; gi++) {
    const cryo_nml_group *g = &groups[gi];
    CRYO_CHECK(g->name && g->nkeys >= 0 && (g->keys || g->nkeys == 0), err, CRYO_ERR_ARG,
               "namelist tables: group %d has no name or an invalid key list", gi);
    for (int ki = 0; ki < g->nkeys; ki++) {
      const cryo_nml_key *k = &g->keys[ki];
      CRYO_CHECK(k->name && k->dest && k->max_count >= 1 && k->type >= CRYO_NML_INT &&
                     k->type <= CRYO_NML_STRING && (k->type != CRYO_NML_STRING || k->str_len >= 1),
                 err, CRYO_ERR_ARG,
                 "namelist tables: &%s key %d (%s) needs a name, a dest, max_count >= 1, a valid "
                 "type and, for strings, str_len >= 1",
                 g->name, ki, k->name ? k->name : "no name");
    }
  }
  return CRYO_OK;
}

int cryo_namelist_read_string(const char *text, const char *source_name,
                              const cryo_nml_group *groups, int ngroups, cryo_err *err) {
  CRYO_CHECK(text, err, CRYO_ERR_ARG, "cryo_namelist_read_string: text is NULL");
  CRYO_CALL(check_tables(groups, ngroups, err));
  int nkeys = 0;
  for (int gi = 0; gi < ngroups; gi++)
    nkeys += groups[gi].nkeys;
  int *lines = calloc((size_t)(2 * ngroups + nkeys + 1), sizeof *lines);
  CRYO_CHECK(lines, err, CRYO_ERR_MEMORY, "namelist %s: out of memory",
             source_name ? source_name : "(string)");
  nml_parser p = {.text = text,
                  .src = source_name ? source_name : "(string)",
                  .pos = strncmp(text, "\xEF\xBB\xBF", 3) ? text : text + 3, /* UTF-8 BOM */
                  .line = 1,
                  .groups = groups,
                  .ngroups = ngroups,
                  .group_line = lines,
                  .key_base = lines + ngroups,
                  .key_line = lines + 2 * ngroups,
                  .err = err};
  for (int gi = 1; gi < ngroups; gi++)
    p.key_base[gi] = p.key_base[gi - 1] + groups[gi - 1].nkeys;
  int status = parse(&p);
  for (int gi = 0; gi < ngroups; gi++)
    if (groups[gi].given)
      memcpy(groups[gi].given, p.key_line + p.key_base[gi],
             (size_t)groups[gi].nkeys * sizeof *groups[gi].given);
  free(lines);
  return status;
}

int cryo_namelist_read_file(const char *path, const cryo_nml_group *groups, int ngroups,
                            cryo_err *err) {
  char *text;
  CRYO_CALL(cryo_file_read_text(path, &text, err));
  int status = cryo_namelist_read_string(text, path, groups, ngroups, err);
  free(text);
  return status;
}

/* The byte order of UTF-16 text from its first two bytes (a byte-order mark,
 * or an ASCII character beside a NUL), NULL if it does not look like it. */
static const char *utf16_order(const unsigned char *b, size_t n) {
  if (n < 2) return NULL;
  if ((b[0] == 0xFF && b[1] == 0xFE) || (b[0] && b[0] < 0x80 && !b[1])) return "little-endian";
  if ((b[0] == 0xFE && b[1] == 0xFF) || (!b[0] && b[1] && b[1] < 0x80)) return "big-endian";
  return NULL;
}

int cryo_file_read_text(const char *path, char **text, cryo_err *err) {
  CRYO_CHECK(path && text, err, CRYO_ERR_ARG, "cryo_file_read_text: path or text is NULL");
  *text = NULL;
  CRYO_CHECK(path[0], err, CRYO_ERR_FILE, "the path is empty: name a namelist (or namcouple) file");
  FILE *f = fopen(path, "rb");
  CRYO_CHECK(f, err, CRYO_ERR_FILE, "%s: cannot open: %s", path, strerror(errno));
  /* A directory opens on Linux; a regular file says its size before it is
   * read, anything else (a pipe, /dev/zero) is read up to the limit. */
  struct stat st;
  int is_dir = 0, too_big = 0;
  if (fstat(fileno(f), &st) == 0) {
    is_dir = S_ISDIR(st.st_mode);
    too_big = S_ISREG(st.st_mode) && st.st_size > CRYO_TEXT_FILE_MAX;
  }
  if (is_dir || too_big) {
    fclose(f);
    CRYO_CHECK(!is_dir, err, CRYO_ERR_FILE, "%s: a directory, not a file", path);
    return CRYO_ERROR(err, CRYO_ERR_FILE,
                      "%s: %lld bytes: too large for a namelist or namcouple (at most %d bytes)",
                      path, (long long)st.st_size, CRYO_TEXT_FILE_MAX);
  }
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (buf && cap - len < 2 && len <= CRYO_TEXT_FILE_MAX) {
      char *bigger = realloc(buf, 2 * cap);
      if (!bigger) free(buf);
      buf = bigger;
      cap *= 2;
    }
    if (!buf) {
      fclose(f);
      return CRYO_ERROR(err, CRYO_ERR_MEMORY, "%s: out of memory after reading %zu bytes", path,
                        len);
    }
    if (len > CRYO_TEXT_FILE_MAX) break;
    size_t want = cap - len - 1, got = fread(buf + len, 1, want, f);
    len += got;
    if (got < want) break;
  }
  int failed = ferror(f), read_errno = errno;
  fclose(f);
  buf[len] = '\0';
  size_t text_len = strlen(buf);
  const char *utf16 = utf16_order((const unsigned char *)buf, len);
  if (failed || len > CRYO_TEXT_FILE_MAX || text_len != len || utf16) {
    free(buf);
    if (failed)
      return CRYO_ERROR(err, CRYO_ERR_FILE, "%s: cannot read: %s", path, strerror(read_errno));
    if (len > CRYO_TEXT_FILE_MAX)
      return CRYO_ERROR(err, CRYO_ERR_FILE,
                        "%s: more than %d bytes: too large for a namelist or namcouple (at most "
                        "%d bytes)",
                        path, CRYO_TEXT_FILE_MAX, CRYO_TEXT_FILE_MAX);
    if (utf16)
      return CRYO_ERROR(err, CRYO_ERR_FILE,
                        "%s: not a text file cryodyn reads: UTF-16 text (%s): save it as UTF-8 or "
                        "ASCII",
                        path, utf16);
    return CRYO_ERROR(err, CRYO_ERR_FILE, "%s: not a text file (it holds a NUL byte at offset %zu)",
                      path, text_len);
  }
  *text = buf;
  return CRYO_OK;
}

const char *cryo_file_kind(mode_t mode) {
  return S_ISCHR(mode)    ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISFIFO(mode) ? "a fifo"
         : S_ISDIR(mode)  ? "a directory"
         : S_ISLNK(mode)  ? "a symbolic link"
         : S_ISSOCK(mode) ? "a socket"
                          : "an unknown kind of file";
}
