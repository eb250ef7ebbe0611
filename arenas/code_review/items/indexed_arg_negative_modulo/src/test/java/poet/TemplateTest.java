package poet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import org.junit.Test;

public final class TemplateTest {
  @Test public void relativeAndIndexedArguments() {
    assertEquals("int a = 1;", Template.format("int $L = $L;", "a", 1));
    assertEquals("b + b * c", Template.format("$1L + $1L * $2L", "b", "c"));
  }

  @Test public void indexTooHigh() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Template.format("$2L", "a"));
    assertEquals("index 2 for '$2L' not in range (received 1 arguments)", e.getMessage());
  }

  @Test public void indexButNoArguments() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Template.format("$1L"));
    assertEquals("index 1 for '$1L' not in range (received 0 arguments)", e.getMessage());
  }

  @Test public void unusedArgument() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Template.format("$1L", "a", "b"));
    assertEquals("unused arguments: $2", e.getMessage());
  }
}
