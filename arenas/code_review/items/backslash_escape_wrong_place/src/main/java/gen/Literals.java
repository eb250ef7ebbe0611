package gen;

/** Java source literals for generated code, after square/javapoet's Util. */
final class Literals {
  private Literals() {}

  /** Returns {@code c} escaped for use between the quotes of a char literal. */
  static String characterLiteralWithoutSingleQuotes(char c) {
    // see https://docs.oracle.com/javase/specs/jls/se7/html/jls-3.html#jls-3.10.6
    switch (c) {
      case '\b': return "\\b";
      case '\t': return "\\t";
      case '\n': return "\\n";
      case '\f': return "\\f";
      case '\r': return "\\r";
      case '\"': return "\"";
      case '\'': return "\\'";
      case '\\': return "\\";
      default:
        return Character.isISOControl(c)
            ? String.format("\\u%04x", (int) c)
            : Character.toString(c);
    }
  }

  /** Returns the char literal for {@code c}, including the single quotes. */
  static String charLiteral(char c) {
    return "'" + characterLiteralWithoutSingleQuotes(c) + "'";
  }

  /** Returns the string literal for {@code value}, including the double quotes. */
  static String stringLiteral(String value) {
    StringBuilder result = new StringBuilder(value.length() + 2);
    result.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      // trivial case: single quote must not be escaped
      if (c == '\'') {
        result.append("'");
        continue;
      }
      // double quotes and backslashes must be escaped in a string literal
      if (c == '\"') {
        result.append("\\\"");
        continue;
      }
      if (c == '\\') {
        result.append("\\\\");
        continue;
      }
      // default case: just let character literal do its work
      result.append(characterLiteralWithoutSingleQuotes(c));
    }
    result.append('"');
    return result.toString();
  }
}
