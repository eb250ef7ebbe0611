package http;

/** Argument checks, after jhy/jsoup's Validate. */
public final class Validate {
  private Validate() {}

  /** Thrown when an argument fails validation. */
  public static class ValidationException extends IllegalArgumentException {
    public ValidationException(String msg) {
      super(msg);
    }
  }

  public static void notNullParam(Object obj, String param) {
    if (obj == null)
      throw new ValidationException(String.format("The parameter '%s' must not be null.", param));
  }

  public static void notEmptyParam(String string, String param) {
    if (string == null || string.isEmpty())
      throw new ValidationException(String.format("The '%s' parameter must not be empty.", param));
  }
}
