// Java source literals for generated code, after square/javapoet's Util.

/** `c` escaped for use between the quotes of a char literal. */
export function characterLiteralWithoutSingleQuotes(c) {
  switch (c) {
    case "\b": return "\\b";
    case "\t": return "\\t";
    case "\n": return "\\n";
    case "\f": return "\\f";
    case "\r": return "\\r";
    case '"': return '"';
    case "'": return "\\'";
    case "\\": return "\\";
    default: {
      const code = c.charCodeAt(0);
      const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
      return control ? "\\u" + code.toString(16).padStart(4, "0") : c;
    }
  }
}

/** The char literal for `c`, with its single quotes. */
export function charLiteral(c) {
  return "'" + characterLiteralWithoutSingleQuotes(c) + "'";
}

/** The string literal for `value`, with its double quotes. */
export function stringLiteral(value) {
  let result = '"';
  for (const c of value) {
    // trivial case: single quote must not be escaped
    if (c === "'") {
      result += "'";
      continue;
    }
    // trivial case: double quotes must be escaped
    if (c === '"') {
      result += '\\"';
      continue;
    }
    // a backslash is doubled
    if (c === "\\") {
      result += "\\\\";
      continue;
    }
    result += characterLiteralWithoutSingleQuotes(c);
  }
  return result + '"';
}
