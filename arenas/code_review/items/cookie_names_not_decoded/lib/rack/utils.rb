# frozen_string_literal: true

require 'uri'

module Rack
  # Query and cookie helpers, after rack/rack's Rack::Utils.
  module Utils
    module_function

    def unescape(s, encoding = Encoding::UTF_8)
      URI.decode_www_form_component(s, encoding)
    end

    # Splits +qs+ on +separator+ and decodes every key and value; the values
    # of a repeated key are collected into an Array.
    def parse_query(qs, separator = '&', &unescaper)
      unescaper ||= method(:unescape)
      params = {}

      (qs || '').split(/[#{separator}] */n).each do |p|
        next if p.empty?
        k, v = p.split('=', 2).map!(&unescaper)

        if (cur = params[k])
          if cur.class == Array
            params[k] << v
          else
            params[k] = [cur, v]
          end
        else
          params[k] = v
        end
      end

      params
    end

    def parse_cookies_header(header)
      # According to RFC 6265:
      # The syntax for cookie headers only supports semicolons
      # User Agent -> Server ==
      # Cookie: SID=31d4d96e407aad42; lang=en-US
      return {} unless header
      header.split(/[;] */n).each_with_object({}) do |cookie, cookies|
        next if cookie.empty?
        key, value = cookie.split('=', 2)
        cookies[key] = (unescape(value) rescue value) unless cookies.key?(key)
      end
    end
  end
end
