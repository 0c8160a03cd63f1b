{
  "targets": [
    {
      "target_name": "icmp",
      "sources": ["icmp.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ]
}
