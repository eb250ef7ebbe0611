package poet;

/** The gold test: R1 and R2, every out-of-range index (no JUnit: plain javac). */
public final class GoldCheck {
  private static void throwsRange(String expected, String format, Object... args) {
    try {
      Template.format(format, args);
    } catch (IllegalArgumentException e) {
      if (!expected.equals(e.getMessage())) {
        throw new AssertionError("expected <" + expected + "> but was <" + e.getMessage() + ">");
      }
      return;
    }
    throw new AssertionError(format + ": no IllegalArgumentException");
  }

  public static void main(String[] args) {
    throwsRange("index 1 for '$1L' not in range (received 0 arguments)", "$1L");
    throwsRange("index 2 for '$2L' not in range (received 1 arguments)", "$2L", "a");
    // R2: $0L is index -1; with two arguments -1 % 2 is -1 (the bug:
    // ArrayIndexOutOfBoundsException before the range check).
    throwsRange("index 0 for '$0L' not in range (received 2 arguments)", "$0L", "a", "b");
    if (!"b + b * c".equals(Template.format("$1L + $1L * $2L", "b", "c"))) {
      throw new AssertionError("indexed arguments");
    }
    System.out.println("template: ok");
  }
}
