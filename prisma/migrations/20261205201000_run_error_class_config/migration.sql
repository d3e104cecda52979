-- A run the worker cannot measure because of how its endpoint is stored (a URL its policy refuses, auth
-- headers its secret key cannot read) is neither the endpoint failing nor teapot failing: its own class.
ALTER TYPE "RunErrorClass" ADD VALUE 'config' BEFORE 'worker_lost';
