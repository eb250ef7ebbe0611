# frozen_string_literal: true

# Request header handling, after jnunemaker/httparty's HTTParty::ClassMethods.
module HTTParty
  module Utils
    def self.stringify_keys(hash)
      hash.transform_keys(&:to_s)
    end
  end

  class RequestOptions
    def initialize
      @default_headers = {}
    end

    # Adds default headers sent with every request, or returns them.
    def headers(h = nil)
      if h
        raise ArgumentError, 'Headers must be an object which responds to #to_hash' unless h.respond_to?(:to_hash)
        @default_headers.merge!(h.to_hash)
      end
      @default_headers
    end

    # Merges the default headers into options[:headers], evaluates callable
    # values and makes every key a String.
    def process_headers(options)
      if options[:headers]
        if headers.any?
          options[:headers] = headers.merge(options[:headers])
        end

        options[:headers] = Utils.stringify_keys(process_dynamic_headers(options[:headers]))
      end
    end

    private

    def process_dynamic_headers(headers)
      headers.each_with_object({}) do |header, processed_headers|
        key, value = header
        processed_headers[key] = value.respond_to?(:call) ? value.call : value
      end
    end
  end
end
