// The server itself lives in CourierDemoServer, which `courier demo` links too; a test that
// imports CourierTesting gets it with the certificates, faulty servers and proxies made here.
@_exported import CourierDemoServer
