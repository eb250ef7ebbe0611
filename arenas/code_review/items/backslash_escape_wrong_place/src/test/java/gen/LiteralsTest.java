package gen;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class LiteralsTest {
  @Test public void charLiterals() {
    assertEquals("'a'", Literals.charLiteral('a'));
    assertEquals("'\\n'", Literals.charLiteral('\n'));
    assertEquals("'\\''", Literals.charLiteral('\''));
    assertEquals("'\"'", Literals.charLiteral('"'));
    assertEquals("'\\u0000'", Literals.charLiteral('\0'));
  }

  @Test public void stringLiterals() {
    assertEquals("\"abc\"", Literals.stringLiteral("abc"));
    assertEquals("\"it's\"", Literals.stringLiteral("it's"));
    assertEquals("\"a\\tb\\n\"", Literals.stringLiteral("a\tb\n"));
    assertEquals("\"This is \\\"quoted\\\"!\"", Literals.stringLiteral("This is \"quoted\"!"));
    assertEquals("\"e^{i\\\\pi}+1=0\"", Literals.stringLiteral("e^{i\\pi}+1=0"));
  }
}
