package http;

import java.io.ByteArrayInputStream;

/** The gold test: R1 and R2 (no JUnit: plain javac). */
public final class GoldCheck {
  private static void rejects(Runnable call) {
    try {
      call.run();
    } catch (Validate.ValidationException e) {
      String expected = "The parameter 'inputStream' must not be null.";
      if (!expected.equals(e.getMessage())) {
        throw new AssertionError("expected <" + expected + "> but was <" + e.getMessage() + ">");
      }
      return;
    }
    throw new AssertionError("a null stream was accepted");
  }

  public static void main(String[] args) {
    rejects(() -> KeyVal.create("file", "thumb.jpg").inputStream(null));
    rejects(() -> KeyVal.create("file", "thumb.jpg", null));
    KeyVal kv = KeyVal.create("file", "thumb.jpg", new ByteArrayInputStream(new byte[] {1}));
    if (!kv.hasInputStream() || !"thumb.jpg".equals(kv.value())) {
      throw new AssertionError("the stream was not kept");
    }
    System.out.println("keyval: ok");
  }
}
