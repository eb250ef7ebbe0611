package gen;

/** The gold test: R1 and R2 on the characters the change is about (no JUnit: plain javac). */
public final class GoldCheck {
  private static void check(String expected, String actual) {
    if (!expected.equals(actual)) {
      throw new AssertionError("expected <" + expected + "> but was <" + actual + ">");
    }
  }

  public static void main(String[] args) {
    // R1: in a string literal " is \" and \ is \\.
    check("\"a\\\"b\"", Literals.stringLiteral("a\"b"));
    check("\"e^{i\\\\pi}\"", Literals.stringLiteral("e^{i\\pi}"));
    // R2: in a char literal ' is \' and " stays; \ is \\ (the bug: '\').
    check("'\\''", Literals.charLiteral('\''));
    check("'\"'", Literals.charLiteral('"'));
    check("'\\\\'", Literals.charLiteral('\\'));
    System.out.println("literals: ok");
  }
}
