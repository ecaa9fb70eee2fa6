-- An impersonation session lives only as long as the staff session that minted it: logout, a
-- password reset (which revokes every staff session) or deactivation of the employee ends it.
-- Impersonation sessions minted before this column existed have none and no longer authenticate.
alter table sessions add column impersonator_session_id uuid references public.employee_sessions (id) on delete cascade;
