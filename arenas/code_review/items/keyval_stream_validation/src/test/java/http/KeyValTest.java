package http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import org.junit.jupiter.api.Test;

class KeyValTest {
  @Test void keyAndValue() {
    KeyVal kv = KeyVal.create("one", "two");
    assertEquals("one", kv.key());
    assertEquals("two", kv.value());
    assertFalse(kv.hasInputStream());
    assertThrows(Validate.ValidationException.class, () -> KeyVal.create("", "two"));
    assertThrows(Validate.ValidationException.class, () -> kv.value(null));
  }

  @Test void fileUpload() {
    KeyVal kv = KeyVal.create("file", "thumb.jpg", new ByteArrayInputStream(new byte[] {1}));
    assertEquals("file", kv.key());
    assertEquals("thumb.jpg", kv.value());
    assertTrue(kv.hasInputStream());

    Validate.ValidationException e = assertThrows(Validate.ValidationException.class,
        () -> KeyVal.create("file", "thumb.jpg").inputStream(null));
    assertEquals("The parameter 'inputStream' must not be null.", e.getMessage());
    assertThrows(Validate.ValidationException.class,
        () -> KeyVal.create("file", "thumb.jpg", null));
  }
}
