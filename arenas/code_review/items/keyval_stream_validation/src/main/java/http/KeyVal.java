package http;

import java.io.InputStream;

/** A form field of a request: a key and a value, or a file name and its content. */
public final class KeyVal {
  private String key;
  private String value;
  private InputStream stream;

  public static KeyVal create(String key, String value) {
    return new KeyVal(key, value);
  }

  public static KeyVal create(String key, String filename, InputStream stream) {
    return new KeyVal(key, filename).inputStream(stream);
  }

  private KeyVal(String key, String value) {
    Validate.notEmptyParam(key, "key");
    Validate.notNullParam(value, "value");
    this.key = key;
    this.value = value;
  }

  public KeyVal key(String key) {
    Validate.notEmptyParam(key, "key");
    this.key = key;
    return this;
  }

  public String key() {
    return key;
  }

  public KeyVal value(String value) {
    Validate.notNullParam(value, "value");
    this.value = value;
    return this;
  }

  public String value() {
    return value;
  }

  public KeyVal inputStream(InputStream inputStream) {
    Validate.notNullParam(inputStream, "inputStream");
    this.stream = inputStream;
    return this;
  }

  public InputStream inputStream() {
    return stream;
  }

  public boolean hasInputStream() {
    return stream != null;
  }

  @Override public String toString() {
    return key + "=" + value;
  }
}
